// The engine registry: every routing engine compiled into ftroute (routing_engines/registry.cpp
// lists them). Declared here, in the engines library, not in fabric/: the base library only
// knows the Engine interface (ftroute/engine.hpp), never the engines built on top of it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ftroute/engine.hpp"

namespace ftroute {

struct EngineInfo {
  std::string name;
  std::string summary;   // one line for --help / docs
  std::function<std::unique_ptr<Engine>()> create;
};

// All engines compiled into ftroute (routing_engines/registry.cpp lists them).
const std::vector<EngineInfo>& engines();
// The registered engine of that name, or nullptr.
const EngineInfo* find_engine(const std::string& name);
// Throws OptionError("unknown engine 'x' (known: ...)").
std::unique_ptr<Engine> make_engine(const std::string& name);

}  // namespace ftroute
