// Bounded reading of input text files (.net, LFT dumps, path-SL, SL2VL, subnet.lst).
// Bad input must fail with a ParseError naming the file (and line), never exhaust memory or
// end in a bare std::bad_alloc: every reader goes through read_input_file(), and every
// parse_*() entry point (also fed directly by tests and fuzzers) calls check_input_text().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ftroute {

struct InputLimits {
  uint64_t max_bytes = 16ull << 30;  // whole file; env FTROUTE_MAX_INPUT_BYTES lowers/raises it
  size_t max_line = 65536;           // one line, '\n' excluded
  bool allow_empty = false;          // a 0-byte file (also /dev/null) is an error unless set
  // Regular files only: skip the binary-data / line-length scan, read straight into the string
  // (the size is bounded by stat and max_bytes). For a caller that checks the text itself
  // before using it: read_net_file (its fast reader accepts only printable text with short
  // lines and otherwise hands the text to the full parser, which calls check_input_text).
  // Pipes and devices are still scanned as they are read.
  bool caller_checks_text = false;
  // Regular files only: a FIFO, socket or device is refused before it is opened (opening a FIFO
  // blocks until a writer comes). For files read inside OpenSM, which must never hang.
  bool regular_only = false;
};

// Per-format defaults (see docs/ARCHITECTURE.md, "Bad input").
InputLimits net_input_limits();    // .net / ibnetdiscover: 1 GiB, lines as ibsim reads them are checked by the parser
InputLimits table_input_limits();  // LFT dumps, path-SL, SL2VL, subnet.lst: 16 GiB, 4096-character lines

// Reads the whole file. Throws ParseError for: a file that cannot be opened, a directory, a
// file larger than lim.max_bytes, a line longer than lim.max_line, binary data (see
// check_input_text; file:line of the first bad byte), an empty file. Stops reading at the
// first violation, so /dev/zero and /dev/urandom fail at once.
std::string read_input_file(const std::string& path, const InputLimits& lim);

// The text read_input_text() returns: for a regular file read with caller_checks_text, an
// uninitialised heap buffer the file is read into (no zero fill, no second copy); otherwise the
// std::string of read_input_file().
class InputText {
 public:
  std::string_view view() const { return buf_ ? std::string_view(buf_.get(), size_) : std::string_view(str_); }

 private:
  friend InputText read_input_text(const std::string& path, const InputLimits& lim);
  std::unique_ptr<char[]> buf_;
  size_t size_ = 0;
  std::string str_;
};

// As read_input_file(), with the same checks, errors and order of checks (the file read on
// past the size stat gave while it grows, within max_bytes; an empty file refused), but a
// regular file read with lim.caller_checks_text goes with read(2) into an uninitialised buffer.
// Used by read_net_file (docs/scale.md section 12).
InputText read_input_text(const std::string& path, const InputLimits& lim);

// Throws ParseError(file, line) if `text` holds binary data (a NUL byte or another control
// character than tab, LF, CR, VT, FF; DEL) or a line longer than max_line. first_line is the
// line number of text[0] (for checking a file chunk by chunk).
void check_input_text(std::string_view text, const std::string& file, size_t max_line = 65536, int first_line = 1);

// The lines of `text` (line k + 1 of the file is element k), without '\n' and a '\r' before it; a
// final '\n' ends the last line and starts none.
std::vector<std::string_view> split_lines(std::string_view text);

// The file read_input_file() opened last (for "out of memory" messages at the CLI top level).
const std::string& last_input_file();

// The length (1-4) of the valid UTF-8 character at s[i], 0 where the bytes there are not one (a
// stray continuation byte, an overlong form, a surrogate, beyond U+10FFFF, cut off at the end);
// its code point into *code_point.
size_t utf8_char_len(std::string_view s, size_t i, uint32_t* code_point = nullptr);
// utf8_char_len(), but 0 also for what must not reach a terminal or a reader raw: control
// characters (C0, DEL, C1: U+0080-U+009F, where U+009B is a terminal's CSI) and the bidirectional
// overrides and isolates (U+202A-U+202E, U+2066-U+2069), which can make one name read as another,
// and U+FFFE, U+FFFF (not characters: XML refuses them, so the SVG may show every name escaped).
size_t shown_char_len(std::string_view s, size_t i);
// `s` with every byte shown_char_len() refuses escaped as \xNN, for names copied into terminal
// output, logs and file comments: valid UTF-8 stays as it is.
std::string escape_name(std::string_view s);
// True if `s` has an ASCII control character or DEL (a path or name the plugin refuses).
bool has_control_chars(std::string_view s);
// `s` in double quotes with '"' and '\' escaped as \" and \\ and the rest as escape_name(): the
// quoted names of messages and port references ("S1"[2], parse_port_ref reads it back).
std::string quote_name(std::string_view s);
// Text for SVG, HTML or XML: escape_name(s) with & < > " ' as entities. Well-formed XML for any
// bytes (names, file names, titles); one escaper for every picture ftroute draws.
std::string xml_text(std::string_view s);
// `s` with every byte that is not part of a valid UTF-8 character as \xNN, the rest as it is:
// strings for JSON, which must be UTF-8 (and escapes control characters itself).
std::string escape_invalid_utf8(std::string_view s);

}  // namespace ftroute
