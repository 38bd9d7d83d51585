// Where the campaign finds its helpers (scripts/ftsim.sh, ftroute-pathsl, libftroute.so), relative
// to the running binary (/proc/self/exe), with an environment override each. No source or build
// path is compiled in, so an installed or copied tree works on its own (docs/INSTALL.md).
//
//   helper           override             looked for (D = directory of the running binary)
//   ftsim.sh         $FTROUTE_FTSIM       D/../libexec/ftroute/ftsim.sh, D/../../libexec/ftroute/ftsim.sh
//   ftroute-pathsl   $FTROUTE_PATHSL      D/ftroute-pathsl, D/../libexec/ftroute/ftroute-pathsl,
//                                         D/../campaign/ftroute-pathsl, D/../../campaign/ftroute-pathsl
//   plugin dir       $FTROUTE_PLUGIN_DIR  D/../<plugin libdir>/libftroute.so (installed, e.g.
//                                         lib/x86_64-linux-gnu), D/../plugin, D/../../plugin (build tree)
// The build tree mirrors the installed layout for ftsim.sh (build/libexec/ftroute/ftsim.sh is a
// copy made at configure time), so binaries under build/<dir>/ and build/<dir>/<dir>/ find it.
// Each function returns "" when nothing is found (plugin dir "": OpenSM's dlopen searches the
// system library path, which is where the .deb puts libftroute.so).
#pragma once

#include <string>

namespace ftroute {

std::string self_exe_dir();  // directory of /proc/self/exe ("" if unreadable)
std::string locate_ftsim_script();
std::string locate_pathsl_tool();
std::string locate_plugin_dir();

}  // namespace ftroute
