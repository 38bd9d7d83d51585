// One port syntax for every command that names a port (gen --remove-link, sim --fail/--recover,
// ...): the one of ibsim's console and of `ftroute check`'s output,
//
//   "NODE"[PORT]     e.g. "S1_1"[2]   (inside the quotes \" is a quote, \\ a backslash and
//                    \xNN the byte NN, the escapes ftroute's messages write)
//
// The older unquoted form NODE[PORT] (S1_1[2]) is read too: NODE is everything before the last
// '['. PORT is a decimal number 0..255.
#pragma once

#include <string>
#include <string_view>

#include "ftroute/error.hpp"

namespace ftroute {

struct PortRef {
  std::string node;
  int port = 0;
  bool operator==(const PortRef&) const = default;
};

// Throws OptionError "bad port 'TEXT': <why> (expected \"NODE\"[PORT])".
PortRef parse_port_ref(std::string_view text);
// The quoted name that starts at text[pos] ('"'), its escapes resolved; pos moves past the closing
// quote. Throws OptionError "<why>" (no closing quote, an unknown escape).
std::string parse_quoted_name(std::string_view text, size_t& pos);
// "NODE"[PORT] with '"', '\' and control characters escaped: parse_port_ref() reads it back.
std::string format_port_ref(std::string_view node, int port);

}  // namespace ftroute
