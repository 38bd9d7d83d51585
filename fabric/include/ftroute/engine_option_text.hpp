// One syntax for engine options, "[ENGINE:]k=v[,k=v...]", wherever they are written: the CLI's
// --opt (route, sim, compare) and the tokens of OpenSM's event_plugin_options.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ftroute/engine.hpp"

namespace ftroute {

// {ENGINE, "k=v,..."} when a ':' comes before the first '=' ("ft-lash:max_vls=4"), else nullopt
// (options for every engine; a value may hold ':', "file=/a:b").
std::optional<std::pair<std::string, std::string>> split_engine_option(const std::string& text);

// The options for `engine` from "[ENGINE:]k=v[,k=v]" texts: a text naming an engine applies to
// that engine only, one without to every engine; later texts win. With only_engine, a text
// naming another engine is an OptionError ("--opt 'x:k=v' is for engine 'x', not 'e'": a command
// that runs one engine). Throws OptionError for a malformed text.
EngineOptions engine_options_for(const std::string& engine, const std::vector<std::string>& texts,
                                 bool only_engine = false);

}  // namespace ftroute
