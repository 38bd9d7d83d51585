#!/usr/bin/env bash
# Install the Debian packages ftroute needs (idempotent). Run as root (or with sudo).
#
# usage: scripts/install-deps.sh [--sm-host | --build-only | --opensm-build] [--list]
#   (default)     everything: building, the .deb, and the whole test suite with its simulators and
#                 tools - OpenSM + headers (plugin), ibsim (simulated fabrics), infiniband-diags
#                 (dump_fts/ibroute), ibutils (ibdmchk cross-check), build tools and GoogleTest,
#                 GNU time (peak RSS in tests/cli/scale_rss_test.sh); clang-14 + libclang-rt-14-dev
#                 (ASan/UBSan and libFuzzer runtimes) for the sanitizer and fuzz steps of
#                 scripts/test.sh; help2man (man pages), nlohmann-json3-dev (--json), librsvg2-bin
#                 (plot render test), slurm-wlm + munge (Slurm test); bison + flex, needed only to
#                 build BookSim2 for scripts/validate_booksim.sh (never part of this tree) and
#                 upstream OpenSM; autoconf, automake, libtool(-bin) for upstream OpenSM
#                 (scripts/build-opensm.sh, the OpenSM matrix of scripts/test.sh); rpm (rpmbuild,
#                 for the RPM of scripts/test.sh's packaging step).
#   --sm-host     only what an OpenSM host needs to run an installed ftroute (the .deb's Depends:
#                 OpenSM, its library, libibmad/libibumad for ftroute-pathsl, infiniband-diags);
#                 no compiler, no simulator, no test tools. `apt-get install ./ftroute_*.deb` pulls
#                 the same packages by itself.
#   --build-only  what building ftroute and its .deb needs (compiler, CMake, GoogleTest, OpenSM and
#                 libibmad headers, help2man, nlohmann-json), and rpm (rpmbuild: `cpack -G RPM`),
#                 without the simulators and test tools.
#   --opensm-build what scripts/build-opensm.sh needs to build upstream OpenSM from its release
#                 tarball (autoconf, automake, libtool, libtool-bin, flex, bison, pkg-config,
#                 libibumad-dev, a C compiler and make).
#   --list        print the packages of the chosen set, one per line, and install nothing.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
SM_HOST=(opensm libopensm9 libibmad5 libibumad3 infiniband-diags)
BUILD=(opensm libopensm-dev libibumad-dev libibmad-dev libgtest-dev cmake g++ make python3
       help2man nlohmann-json3-dev
       rpm)   # rpmbuild for the RPM (cpack -G RPM, docs/INSTALL.md)
OPENSM_BUILD=(autoconf automake libtool libtool-bin flex bison pkg-config libibumad-dev gcc make)
ALL=(opensm libopensm-dev libibumad-dev libibverbs-dev ibsim-utils libumad2sim0 infiniband-diags
     libibmad-dev libibnetdisc-dev ibutils libgtest-dev cmake g++ make python3 time
     clang-14 libclang-rt-14-dev   # sanitizer build + libFuzzer targets (scripts/fuzz.sh)
     help2man nlohmann-json3-dev librsvg2-bin slurm-wlm munge
     bison flex    # BookSim2 (scripts/validate_booksim.sh) and upstream OpenSM
     autoconf automake libtool libtool-bin pkg-config   # upstream OpenSM (scripts/build-opensm.sh)
     rpm           # rpmbuild: the RPM built against upstream OpenSM 3.3.24
     ccache)       # scripts/test.sh: the OpenSM matrix reuses the main build's objects
PKGS=("${ALL[@]}")
LIST=0
while [ $# -gt 0 ]; do
  case $1 in
    --sm-host) PKGS=("${SM_HOST[@]}") ;;
    --build-only) PKGS=("${BUILD[@]}") ;;
    --opensm-build) PKGS=("${OPENSM_BUILD[@]}") ;;
    --all) PKGS=("${ALL[@]}") ;;
    --list) LIST=1 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "install-deps: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ $LIST -eq 1 ]; then printf '%s\n' "${PKGS[@]}"; exit 0; fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" > /dev/null || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages already installed"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-deps: missing ${missing[*]}; run as root (no sudo found)" >&2; exit 1; }
  SUDO="sudo"
fi
command -v apt-get >/dev/null 2>&1 || { echo "install-deps: missing ${missing[*]} and no apt-get (Debian 12 expected)" >&2; exit 1; }
echo "install-deps: installing: ${missing[*]}"
$SUDO apt-get update -qq
# policy-rc.d may deny starting the opensm service; that is expected and harmless.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" \
  || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: done"
