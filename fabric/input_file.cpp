#include "ftroute/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "ftroute/error.hpp"

namespace ftroute {
namespace {

// 1 = byte never appears in a text file we read
struct BadBytes {
  bool bad[256];
  constexpr BadBytes() : bad() {
    for (int c = 0; c < 256; c++) bad[c] = (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f') || c == 0x7f;
  }
};
constexpr BadBytes kBad;

std::string& last_file() {
  static thread_local std::string f;
  return f;
}

std::string byte_desc(unsigned char c) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02x", c);
  return b;
}

// Line/column state carried across chunks.
struct Scan {
  const std::string& file;
  size_t max_line;
  int line;
  size_t col = 0;
  size_t crs = 0;      // carriage returns in this line
  bool utf16 = false;  // the text starts with a UTF-16 byte-order mark
  void feed(std::string_view t) {
    if (line == 1 && col == 0 && t.size() >= 2 && ((t[0] == '\xff' && t[1] == '\xfe') || (t[0] == '\xfe' && t[1] == '\xff')))
      utf16 = true;
    for (size_t i = 0; i < t.size(); i++) {
      const unsigned char c = static_cast<unsigned char>(t[i]);
      if (c == '\n') {
        line++;
        col = crs = 0;
        continue;
      }
      crs += c == '\r';
      if (kBad.bad[c])
        throw ParseError(file, line, "binary data (byte " + byte_desc(c) + " in column " + std::to_string(col + 1) +
                                         "): not a text file" +
                                         (utf16 ? " (UTF-16 text: convert it with `iconv -f UTF-16 -t UTF-8`)" : ""));
      if (++col > max_line)
        throw ParseError(file, line, "line longer than " + std::to_string(max_line) + " characters" +
                                         (crs ? " (it holds " + std::to_string(crs) +
                                                    " carriage returns: lines ended by CR alone? convert them with "
                                                    "`tr '\\r' '\\n'`)"
                                              : ""));
    }
  }
};

uint64_t env_max_bytes(uint64_t def) {
  const char* e = std::getenv("FTROUTE_MAX_INPUT_BYTES");
  if (!e || !*e) return def;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(e, &end, 0);
  if (errno || *end || v == 0) return def;
  return v;
}

}  // namespace

InputLimits net_input_limits() {
  InputLimits l;
  l.max_bytes = env_max_bytes(1ull << 30);
  l.max_line = 4096;  // the parser reports lines over ibsim's 254 characters itself
  return l;
}

InputLimits table_input_limits() {
  InputLimits l;
  l.max_bytes = env_max_bytes(16ull << 30);
  l.max_line = 4096;
  return l;
}

void check_input_text(std::string_view text, const std::string& file, size_t max_line, int first_line) {
  Scan s{file, max_line, first_line};
  s.feed(text);
}

const std::string& last_input_file() { return last_file(); }

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(pos, nl - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    lines.push_back(l);
    pos = nl + 1;
  }
  return lines;
}

std::string read_input_file(const std::string& path, const InputLimits& lim) {
  last_file() = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw ParseError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw ParseError(path, 0, "is a directory, not a file");
  if (lim.regular_only && !S_ISREG(st.st_mode))
    throw ParseError(path, 0, "not a regular file (a FIFO, socket or device cannot be read here)");
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > lim.max_bytes)
    throw ParseError(path, 0, "file too large: " + std::to_string(st.st_size) + " bytes, limit " +
                                  std::to_string(lim.max_bytes) + " (env FTROUTE_MAX_INPUT_BYTES)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  std::string text;
  if (S_ISREG(st.st_mode) && lim.caller_checks_text) {
    // straight into the string, no scan and no copy (a file that grew since stat is read on,
    // within max_bytes)
    size_t want = static_cast<size_t>(st.st_size) + 1;  // +1: see EOF in the first read
    for (;;) {
      const size_t old = text.size();
      text.resize(old + want);
      in.read(text.data() + old, static_cast<std::streamsize>(want));
      const size_t got = static_cast<size_t>(in.gcount());
      text.resize(old + got);
      if (text.size() > lim.max_bytes)
        throw ParseError(path, 0, "file too large: more than " + std::to_string(lim.max_bytes) +
                                      " bytes (env FTROUTE_MAX_INPUT_BYTES)");
      if (got < want) break;
      want = 1 << 20;
    }
    if (in.bad()) throw ParseError(path, 0, "read error");
    if (text.empty() && !lim.allow_empty) throw ParseError(path, 0, "empty file");
    return text;
  }
  if (S_ISREG(st.st_mode)) text.reserve(static_cast<size_t>(st.st_size));
  Scan scan{path, lim.max_line, 1};
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const size_t got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    if (text.size() + got > lim.max_bytes)
      throw ParseError(path, 0, "file too large: more than " + std::to_string(lim.max_bytes) +
                                    " bytes (env FTROUTE_MAX_INPUT_BYTES)");
    std::string_view chunk(buf.data(), got);
    scan.feed(chunk);
    text.append(chunk);
  }
  if (in.bad()) throw ParseError(path, 0, "read error");
  if (text.empty() && !lim.allow_empty) throw ParseError(path, 0, "empty file");
  return text;
}

InputText read_input_text(const std::string& path, const InputLimits& lim) {
  InputText t;
  last_file() = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw ParseError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode) || !lim.caller_checks_text) {
    t.str_ = read_input_file(path, lim);  // its own stat: the same checks, in the same order
    return t;
  }
  // read_input_file's checks for a regular file, in its order
  if (static_cast<uint64_t>(st.st_size) > lim.max_bytes)
    throw ParseError(path, 0, "file too large: " + std::to_string(st.st_size) + " bytes, limit " +
                                  std::to_string(lim.max_bytes) + " (env FTROUTE_MAX_INPUT_BYTES)");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ParseError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  // +1: see EOF in the first read; a file that grew since stat is read on (within max_bytes)
  size_t cap = static_cast<size_t>(st.st_size) + 1, size = 0;
  t.buf_.reset(new char[cap]);  // default-initialised: no zero fill
  for (;;) {
    if (size == cap) {
      const size_t ncap = cap + std::max<size_t>(cap / 2, 1 << 20);
      std::unique_ptr<char[]> nb(new char[ncap]);
      std::memcpy(nb.get(), t.buf_.get(), size);
      t.buf_ = std::move(nb);
      cap = ncap;
    }
    const ssize_t got = ::read(fd, t.buf_.get() + size, cap - size);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw ParseError(path, 0, "read error");
    }
    if (got == 0) break;
    size += static_cast<size_t>(got);
    if (size > lim.max_bytes)
      throw ParseError(path, 0, "file too large: more than " + std::to_string(lim.max_bytes) +
                                    " bytes (env FTROUTE_MAX_INPUT_BYTES)");
  }
  if (size == 0 && !lim.allow_empty) throw ParseError(path, 0, "empty file");
  t.size_ = size;
  return t;
}

bool has_control_chars(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

size_t utf8_char_len(std::string_view s, size_t i, uint32_t* code_point) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    if (code_point) *code_point = c;
    return 1;
  }
  const size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  uint32_t cp = len == 2 ? c & 0x1fu : len == 3 ? c & 0x0fu : c & 0x07u;
  for (size_t k = 1; k < len; k++) {
    const unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3fu);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;  // overlong, too large
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;                                              // a surrogate
  if (code_point) *code_point = cp;
  return len;
}

size_t shown_char_len(std::string_view s, size_t i) {
  uint32_t cp = 0;
  const size_t len = utf8_char_len(s, i, &cp);
  if (len == 0 || cp < 0x20 || cp == 0x7f) return 0;
  if (cp >= 0x80 && cp <= 0x9f) return 0;                                   // C1 controls (0x9b: CSI)
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return 0;  // bidi overrides, isolates
  if (cp == 0xfffe || cp == 0xffff) return 0;                               // not characters (XML refuses them)
  return len;
}

namespace {

void hex_byte(std::string& r, unsigned char u) {
  char b[8];
  std::snprintf(b, sizeof b, "\\x%02x", u);
  r += b;
}

bool all_plain_ascii(std::string_view s) {
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return false;
  }
  return true;
}

// `s` with every byte that does not start a character as \xNN: a character is what
// shown_char_len() accepts (`shown`), else any valid UTF-8 character; `quote`: '"' and '\' as \"
// and \\ too.
std::string escape_bytes(std::string_view s, bool shown, bool quote) {
  std::string r;
  r.reserve(s.size() + 2);
  for (size_t i = 0; i < s.size();) {
    if (quote && (s[i] == '"' || s[i] == '\\')) {
      r += '\\';
      r += s[i++];
      continue;
    }
    const size_t len = shown ? shown_char_len(s, i) : utf8_char_len(s, i);
    if (len == 0) {
      hex_byte(r, static_cast<unsigned char>(s[i++]));
    } else {
      r.append(s.substr(i, len));
      i += len;
    }
  }
  return r;
}

}  // namespace

std::string escape_name(std::string_view s) {
  if (all_plain_ascii(s)) return std::string(s);
  return escape_bytes(s, true, false);
}

std::string quote_name(std::string_view s) { return "\"" + escape_bytes(s, true, true) + "\""; }

std::string xml_text(std::string_view s) {
  std::string o;
  for (char c : escape_name(s)) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string escape_invalid_utf8(std::string_view s) {
  if (all_plain_ascii(s)) return std::string(s);
  return escape_bytes(s, false, false);
}

}  // namespace ftroute
