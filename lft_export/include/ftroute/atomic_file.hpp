// A command's output file, written in chunks and published atomically: the text goes to
// PATH.tmp.<pid> next to PATH, commit() renames it over PATH. Destroyed without commit() (an
// exception on the way), the temp file is removed, so a failed command leaves nothing behind.
// "-" streams to stdout (nothing to roll back); an existing device or FIFO (/dev/null) is written
// in place, never replaced. Several AtomicFiles committed one after the other
// at the end of a command give all-or-nothing output unless a rename itself fails.
#pragma once

#include <cstdio>
#include <string>

#include "ftroute/text_out.hpp"

namespace ftroute {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);  // creates the temp file; throws Error if it cannot
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Writes a chunk; throws Error on a write error (disk full, ...).
  void write(std::string_view chunk);
  // A TextOut sink writing to this file.
  TextOut::Sink sink() {
    return [this](std::string_view c) { write(c); };
  }
  // Flushes, closes and renames the temp file over the path. Throws Error on failure (the temp
  // file is removed).
  void commit();
  const std::string& path() const { return path_; }

 private:
  void discard() noexcept;
  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
  bool committed_ = false;
  bool direct_ = false;  // an existing non-regular file (/dev/null, a FIFO): written in place
};

}  // namespace ftroute
