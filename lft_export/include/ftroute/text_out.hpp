// Streaming text output for the file writers (LFT dumps, path-SL, SL2VL, fdbs): the writers append
// to a TextOut, which hands the text to a sink in chunks of about 1 MiB, so a 1.5 GB dump never
// exists as one string. The sink does the I/O (the CLI's atomic temp file, a std::string in
// tests); it may throw, and the exception leaves the writer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace ftroute {

class TextOut {
 public:
  using Sink = std::function<void(std::string_view chunk)>;
  // The buffer holds a chunk and kSlack bytes more, so a line that crosses the chunk size still
  // fits (chunks handed to the sink are chunk .. chunk + kSlack bytes, the last one shorter).
  static constexpr size_t kSlack = 4096;
  explicit TextOut(Sink sink, size_t chunk = size_t{1} << 20)
      : sink_(std::move(sink)), chunk_(std::max<size_t>(chunk, 1)), cap_(chunk_ + kSlack),
        buf_(std::make_unique_for_overwrite<char[]>(cap_)) {}
  TextOut(const TextOut&) = delete;
  TextOut& operator=(const TextOut&) = delete;
  // Not flushed on destruction (a flush can throw): call flush() when done.
  ~TextOut() = default;

  void put(std::string_view s) {
    if (s.size() <= cap_ - size_) {
      std::memcpy(buf_.get() + size_, s.data(), s.size());
      size_ += s.size();
      if (size_ >= chunk_) flush();
      return;
    }
    while (!s.empty()) {  // longer than the room left: fill the buffer, flush, go on
      const size_t n = std::min(s.size(), cap_ - size_);
      std::memcpy(buf_.get() + size_, s.data(), n);
      size_ += n;
      s.remove_prefix(n);
      if (size_ >= chunk_) flush();
    }
  }
  void put(char c) {
    if (size_ == cap_) flush();  // only after a sink threw
    buf_[size_++] = c;
    if (size_ >= chunk_) flush();
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
  // "0x%04x" of a LID / "%03u" of a port without snprintf.
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

  // Direct writing into the buffer (the LFT writer's hot loop, lft_write.cpp): room(n) flushes if
  // fewer than n bytes are free (and grows the buffer if it is smaller than n) and returns where
  // the next byte goes; the caller writes up to free_bytes() there, then wrote(k) for the k bytes
  // it wrote, which flushes once a chunk is full. chunk_left() = bytes until the chunk is full.
  char* room(size_t n) {
    if (n > cap_ - size_) {
      flush();
      if (n > cap_) {
        cap_ = n;
        buf_ = std::make_unique_for_overwrite<char[]>(cap_);
      }
    }
    return buf_.get() + size_;
  }
  size_t free_bytes() const { return cap_ - size_; }
  size_t chunk_left() const { return size_ < chunk_ ? chunk_ - size_ : 0; }
  void wrote(size_t k) {
    size_ += k;
    if (size_ >= chunk_) flush();
  }

  void flush() {
    if (size_ == 0) return;
    sink_(std::string_view(buf_.get(), size_));
    bytes_ += size_;
    size_ = 0;
  }
  uint64_t bytes() const { return bytes_ + size_; }  // written so far (flushed or not)

  // A sink that appends to a string (tests, the string-returning wrappers).
  static Sink to_string(std::string& s) {
    return [&s](std::string_view c) { s.append(c); };
  }

 private:
  Sink sink_;
  size_t chunk_;
  size_t cap_;
  std::unique_ptr<char[]> buf_;
  size_t size_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace ftroute
