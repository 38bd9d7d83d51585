// Default and meaning of every engine option, for `ftroute engines` (text and --json). Keyed by
// engine and option key; `ftroute engines` (and the cli.engines test) report an option key that an
// engine accepts (Engine::option_keys) but that has no entry here, so the table cannot go stale.
#pragma once

#include <string>

namespace ftroute::cli {

struct OptionDoc {
  const char* engine;
  const char* key;
  const char* def;      // default, as the engine applies it
  const char* meaning;
};

// nullptr if the option is not documented.
const OptionDoc* find_option_doc(const std::string& engine, const std::string& key);

}  // namespace ftroute::cli
