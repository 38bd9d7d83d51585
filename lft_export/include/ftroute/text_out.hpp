// Streaming text output for the file writers (LFT dumps, path-SL, SL2VL, fdbs): the writers append
// to a TextOut, which hands the text to a sink in chunks of about 1 MiB, so a 1.5 GB dump never
// exists as one string. The sink does the I/O (the CLI's atomic temp file, a std::string in
// tests); it may throw, and the exception leaves the writer.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace ftroute {

class TextOut {
 public:
  using Sink = std::function<void(std::string_view chunk)>;
  explicit TextOut(Sink sink, size_t chunk = size_t{1} << 20) : sink_(std::move(sink)), chunk_(chunk) {
    buf_.reserve(chunk_ + 512);
  }
  TextOut(const TextOut&) = delete;
  TextOut& operator=(const TextOut&) = delete;
  // Not flushed on destruction (a flush can throw): call flush() when done.
  ~TextOut() = default;

  void put(std::string_view s) {
    buf_.append(s);
    if (buf_.size() >= chunk_) flush();
  }
  void put(char c) {
    buf_.push_back(c);
    if (buf_.size() >= chunk_) flush();
  }
  // printf-style; lines longer than 512 bytes are formatted twice.
  template <typename... A>
  void printf(const char* f, A... args) {
    char b[512];
    const int n = std::snprintf(b, sizeof b, f, args...);
    if (n < 0) return;
    if (static_cast<size_t>(n) < sizeof b) {
      put(std::string_view(b, static_cast<size_t>(n)));
      return;
    }
    std::string s(static_cast<size_t>(n) + 1, '\0');
    std::snprintf(s.data(), s.size(), f, args...);
    s.resize(static_cast<size_t>(n));
    put(s);
  }
  // "0x%04x" of a LID / "%03u" of a port without snprintf (the hot path of the LFT writers).
  void hex4(uint32_t v) {
    static const char* d = "0123456789abcdef";
    char b[6] = {'0', 'x', d[(v >> 12) & 15], d[(v >> 8) & 15], d[(v >> 4) & 15], d[v & 15]};
    if (v > 0xffff) {
      printf("0x%x", v);
      return;
    }
    put(std::string_view(b, 6));
  }
  void dec3(uint32_t v) {
    if (v > 999) {
      printf("%u", v);
      return;
    }
    char b[3] = {static_cast<char>('0' + v / 100), static_cast<char>('0' + v / 10 % 10), static_cast<char>('0' + v % 10)};
    put(std::string_view(b, 3));
  }
  void flush() {
    if (buf_.empty()) return;
    sink_(buf_);
    bytes_ += buf_.size();
    buf_.clear();
  }
  uint64_t bytes() const { return bytes_ + buf_.size(); }  // written so far (flushed or not)

  // A sink that appends to a string (tests, the string-returning wrappers).
  static Sink to_string(std::string& s) {
    return [&s](std::string_view c) { s.append(c); };
  }

 private:
  Sink sink_;
  size_t chunk_;
  std::string buf_;
  uint64_t bytes_ = 0;
};

}  // namespace ftroute
