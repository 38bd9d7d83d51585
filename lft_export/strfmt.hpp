// printf-style formatting into std::string, shared by lft_export's writers (internal header).
#pragma once

#include <cstdio>
#include <string>

namespace ftroute::detail {

inline std::string fmt(const char* f, auto... args) {
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, f, args...);
  if (n < 0) return {};
  if (static_cast<size_t>(n) < sizeof buf) return std::string(buf, static_cast<size_t>(n));
  std::string s(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(s.data(), s.size(), f, args...);
  s.resize(static_cast<size_t>(n));
  return s;
}

}  // namespace ftroute::detail
