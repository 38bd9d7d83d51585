#include "ftroute/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

#include "ftroute/error.hpp"

namespace ftroute {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_ == "-") {
    f_ = stdout;
    return;
  }
  // An existing device, FIFO or socket (/dev/null, /dev/stdout, a pipe) is written in place:
  // renaming a temp file over it would replace the device node with a regular file.
  struct stat sb;
  if (::stat(path_.c_str(), &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
    f_ = std::fopen(path_.c_str(), "wb");
    if (!f_) throw Error("cannot write " + path_ + ": " + std::strerror(errno));
    direct_ = true;
    return;
  }
  tmp_ = path_ + ".tmp." + std::to_string(::getpid());
  f_ = std::fopen(tmp_.c_str(), "wb");
  if (!f_) throw Error("cannot write " + path_ + ": " + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::discard() noexcept {
  if (f_ && f_ != stdout) std::fclose(f_);
  f_ = nullptr;
  if (!tmp_.empty()) {
    std::error_code ec;
    std::filesystem::remove(tmp_, ec);
  }
}

void AtomicFile::write(std::string_view chunk) {
  if (!f_) throw Error("cannot write " + path_ + ": file already closed");
  if (chunk.empty()) return;
  if (std::fwrite(chunk.data(), 1, chunk.size(), f_) != chunk.size())
    throw Error("cannot write " + (f_ == stdout ? std::string("stdout") : path_) + ": " + std::strerror(errno));
}

void AtomicFile::commit() {
  if (committed_) return;
  if (f_ == stdout) {
    committed_ = true;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw Error(std::string("cannot write stdout: ") + std::strerror(errno));
    return;
  }
  const bool ok = std::fflush(f_) == 0 && !std::ferror(f_);
  const int err = errno;
  const bool closed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (direct_) {
    committed_ = true;
    if (!ok || !closed) throw Error("cannot write " + path_ + ": " + std::strerror(err));
    return;
  }
  if (!ok || !closed) {
    discard();
    throw Error("cannot write " + path_ + ": " + std::strerror(err));
  }
  std::error_code ec;
  std::filesystem::rename(tmp_, path_, ec);
  if (ec) {
    discard();
    throw Error("cannot write " + path_ + ": " + ec.message());
  }
  committed_ = true;
}

}  // namespace ftroute
