// The one port syntax (port_ref.hpp).
#include "ftroute/port_ref.hpp"

#include <cstdio>

#include "ftroute/input_file.hpp"

namespace ftroute {

namespace {

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw OptionError("bad port '" + std::string(text) + "': " + why + " (expected \"NODE\"[PORT])");
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string parse_quoted_name(std::string_view text, size_t& pos) {
  std::string name;
  size_t i = pos + 1;
  while (i < text.size()) {
    char c = text[i++];
    if (c == '"') {
      pos = i;
      return name;
    }
    if (c != '\\') {
      name += c;
      continue;
    }
    if (i >= text.size()) throw OptionError("'\\' at the end");
    char e = text[i++];
    if (e == '"' || e == '\\') {
      name += e;
    } else if (e == 'x' && i + 1 < text.size() && hex(text[i]) >= 0 && hex(text[i + 1]) >= 0) {
      name += static_cast<char>(hex(text[i]) * 16 + hex(text[i + 1]));
      i += 2;
    } else {
      throw OptionError(std::string("unknown escape '\\") + e + "'");
    }
  }
  throw OptionError("no closing '\"'");
}

PortRef parse_port_ref(std::string_view text) {
  PortRef r;
  size_t i = 0;
  if (text.empty()) bad(text, "empty");
  if (text[0] == '"') {  // "NODE" with escapes
    try {
      r.node = parse_quoted_name(text, i);
    } catch (const OptionError& e) {
      bad(text, e.what());
    }
    if (i >= text.size() || text[i] != '[') bad(text, "no '[PORT]' after the quoted node name");
  } else {  // legacy NODE[PORT]: the node is everything before the last '['
    size_t lb = text.rfind('[');
    if (lb == std::string_view::npos) bad(text, "no '[PORT]'");
    r.node = std::string(text.substr(0, lb));
    i = lb;
  }
  if (r.node.empty()) bad(text, "empty node name");
  // text[i] == '['
  const size_t rb = text.find(']', i);
  if (rb == std::string_view::npos) bad(text, "no closing ']'");
  if (rb + 1 != text.size()) bad(text, "'" + std::string(text.substr(rb + 1)) + "' after ']'");
  std::string_view num = text.substr(i + 1, rb - i - 1);
  if (num.empty() || num.size() > 3 || num.find_first_not_of("0123456789") != std::string_view::npos)
    bad(text, "port '" + std::string(num) + "' is not a number");
  r.port = std::stoi(std::string(num));
  if (r.port > 255) bad(text, "port " + std::string(num) + " is above 255");
  return r;
}

std::string format_port_ref(std::string_view node, int port) {
  return quote_name(node) + "[" + std::to_string(port) + "]";  // Fabric::port_name()'s quoting
}

}  // namespace ftroute
