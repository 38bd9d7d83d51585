// AtomicFile (lft_export/atomic_file.cpp), the output file of every command: the text goes to a
// temp file beside the path and appears under the path only on commit(); an error or a missing
// commit leaves the old file (or none) and no temp file; "-" is stdout; an existing FIFO is
// written in place, never replaced by a regular file.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "ftroute/atomic_file.hpp"
#include "ftroute/error.hpp"

using namespace ftroute;
namespace fs = std::filesystem;

namespace {

// A fresh, empty scratch folder per test.
std::string scratch(const std::string& name) {
  const std::string d = std::string(FTROUTE_BINARY_DIR) + "/itest-scratch/atomic_file/" + name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// The names in folder d, sorted.
std::vector<std::string> listing(const std::string& d) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST(AtomicFile, CommitPublishesTheChunksAndLeavesNoTempFile) {
  const std::string d = scratch("commit");
  const std::string p = d + "/out.txt";
  {
    AtomicFile f(p);
    EXPECT_EQ(f.path(), p);
    f.write("first line\n");
    f.write("");
    f.sink()("second ");
    f.write("line\n");
    EXPECT_FALSE(fs::exists(p)) << "the path must not exist before commit()";
    ASSERT_EQ(listing(d).size(), 1u);  // the temp file, beside the path
    EXPECT_EQ(listing(d)[0].rfind("out.txt.tmp.", 0), 0u) << listing(d)[0];
    f.commit();
    f.commit();  // a second commit is a no-op
  }
  EXPECT_EQ(slurp(p), "first line\nsecond line\n");
  EXPECT_EQ(listing(d), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, OldContentStaysUntilCommitThenIsReplaced) {
  const std::string d = scratch("replace");
  const std::string p = d + "/out.txt";
  spit(p, "old content\n");
  AtomicFile f(p);
  f.write("new content\n");
  EXPECT_EQ(slurp(p), "old content\n") << "a reader must see the old file while the new one is written";
  f.commit();
  EXPECT_EQ(slurp(p), "new content\n");
  EXPECT_EQ(listing(d), std::vector<std::string>{"out.txt"});
}

TEST(AtomicFile, WithoutCommitNothingIsLeftBehind) {
  const std::string d = scratch("rollback");
  const std::string fresh = d + "/new.txt", kept = d + "/kept.txt";
  spit(kept, "keep me\n");
  try {
    AtomicFile a(fresh), b(kept);
    a.write("partial");
    b.write("partial");
    throw Error("a failure half-way");  // the command fails before its commits
  } catch (const Error&) {
  }
  EXPECT_FALSE(fs::exists(fresh));
  EXPECT_EQ(slurp(kept), "keep me\n");
  EXPECT_EQ(listing(d), std::vector<std::string>{"kept.txt"}) << "a temp file was left behind";
}

TEST(AtomicFile, ErrorsNameThePathAndLeaveNothing) {
  const std::string d = scratch("errors");
  // a folder that does not exist: the constructor throws, naming the path
  const std::string missing = d + "/no/such/dir/out.txt";
  try {
    AtomicFile f(missing);
    FAIL() << "no error for " << missing;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write " + missing), std::string::npos) << e.what();
  }
  // the rename fails (the path is a folder): commit() throws and removes its temp file
  const std::string dir = d + "/taken";
  fs::create_directories(dir);
  spit(dir + "/inside.txt", "x");
  {
    AtomicFile f(dir);
    f.write("text");
    EXPECT_THROW(f.commit(), Error);
    EXPECT_THROW(f.write("more"), Error) << "a closed file must refuse writes";
  }
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_EQ(slurp(dir + "/inside.txt"), "x");
  EXPECT_EQ(listing(d), std::vector<std::string>{"taken"}) << "a temp file was left behind";
  // after a good commit the file is closed too
  AtomicFile g(d + "/done.txt");
  g.commit();
  EXPECT_THROW(g.write("late"), Error);
  EXPECT_EQ(slurp(d + "/done.txt"), "");
}

// A full disk, played by a file size limit: the write or the commit throws (a chunk smaller
// than the stdio buffer fails only when commit() flushes it), and neither the path nor a temp
// file remains.
TEST(AtomicFile, WriteErrorLeavesNoFile) {
  const std::string d = scratch("full");
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < 64 * 1024) GTEST_SKIP() << "file size already limited";
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // the write then fails with EFBIG
  struct rlimit lim = old;
  lim.rlim_cur = 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
  struct Case {
    const char* file;
    size_t chunk;
    int chunks;
  };
  std::vector<std::pair<std::string, std::string>> errors;  // (path, message or "")
  for (const Case& c : {Case{"many_chunks.txt", 1000, 64}, Case{"one_small_chunk.txt", 2000, 1}}) {
    const std::string p = d + "/" + c.file;
    std::string what;
    try {
      AtomicFile f(p);
      for (int i = 0; i < c.chunks; i++) f.write(std::string(c.chunk, 'x'));
      f.commit();
    } catch (const Error& e) {
      what = e.what();
    }
    errors.emplace_back(p, what);
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  for (const auto& [p, what] : errors) {
    EXPECT_NE(what.find("cannot write " + p), std::string::npos) << p << ": no or another error past a 1 KB file "
                                                                 << "size limit: '" << what << "'";
    EXPECT_FALSE(fs::exists(p)) << p;
  }
  EXPECT_TRUE(listing(d).empty()) << "a temp file was left behind";
}

TEST(AtomicFile, DashIsStdout) {
  testing::internal::CaptureStdout();
  {
    AtomicFile f("-");
    f.write("to stdout\n");
    f.commit();
  }
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "to stdout\n");
  EXPECT_FALSE(fs::exists("-"));
}

// An existing FIFO (like /dev/stdout or a pipe given as the output path) is written in place:
// a temp file renamed over it would replace it by a regular file and the reader would get nothing.
TEST(AtomicFile, FifoIsWrittenInPlace) {
  const std::string d = scratch("fifo");
  const std::string p = d + "/pipe";
  ASSERT_EQ(mkfifo(p.c_str(), 0600), 0) << "mkfifo " << p;
  const int rfd = open(p.c_str(), O_RDONLY | O_NONBLOCK);  // a reader first, so the writer's open does not block
  ASSERT_GE(rfd, 0);
  {
    AtomicFile f(p);
    f.write("through the pipe\n");
    f.commit();
  }
  char buf[64] = {};
  const ssize_t n = read(rfd, buf, sizeof buf);
  close(rfd);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "through the pipe\n");
  struct stat sb {};
  ASSERT_EQ(stat(p.c_str(), &sb), 0);
  EXPECT_TRUE(S_ISFIFO(sb.st_mode)) << "the FIFO was replaced";
  EXPECT_EQ(listing(d), std::vector<std::string>{"pipe"});
}
