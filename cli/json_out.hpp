// `--json` output of the ftroute command (docs/JSON.md), written with nlohmann-json.
// Every document is one JSON object with "ftroute_version" and "command"; the commands that take
// --json are listed in kJsonCommands (main.cpp refuses --json elsewhere with one line, exit 2).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ftroute/fabric.hpp"
#include "ftroute/flitsim.hpp"
#include "ftroute/validate.hpp"

namespace ftroute::cli {

inline const std::vector<std::string> kJsonCommands = {"check", "compare", "route", "engines", "sim", "campaign-table"};

// {"ftroute_version": ..., "command": cmd}
nlohmann::json json_doc(const std::string& cmd);
// {"switches", "cas", "links", "max_lid"}
nlohmann::json fabric_json(const Fabric& f);
// A validation report (check, compare): pairs, loops, entries, deadlock, EFI, hops, result.
nlohmann::json report_json(const Fabric& f, const ValidationReport& r);
// The load points of `sim` (one or a sweep): packets, drops, latency, deadlock, notes per load.
nlohmann::json sim_points_json(const std::vector<flitsim::SweepPoint>& pts);
// Pretty-printed document + newline; bytes of strings that are not UTF-8 as \xNN.
std::string dump_json(const nlohmann::json& j);

}  // namespace ftroute::cli
