#!/usr/bin/env bash
# Install every Debian package ftroute needs (idempotent). Run as root (or with sudo).
# Packages: OpenSM + headers (plugin), ibsim (simulated fabrics), infiniband-diags (dump_fts/ibroute),
# ibutils (ibdmchk cross-check), build tools and GoogleTest, GNU time (peak RSS in tests/cli/scale_rss_test.sh);
# clang-14 + libclang-rt-14-dev (ASan/UBSan and libFuzzer runtimes) for the sanitizer and fuzz steps of scripts/test.sh;
# help2man (man pages), nlohmann-json3-dev (--json), librsvg2-bin (plot render test), slurm-wlm + munge (Slurm test);
# bison + flex: needed only to build BookSim2 for scripts/validate_booksim.sh (never part of this tree).
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
PKGS=(opensm libopensm-dev libibumad-dev libibverbs-dev ibsim-utils libumad2sim0 infiniband-diags
      libibmad-dev libibnetdisc-dev ibutils libgtest-dev cmake g++ make python3 time
      clang-14 libclang-rt-14-dev   # sanitizer build + libFuzzer targets (scripts/fuzz.sh)
      help2man nlohmann-json3-dev librsvg2-bin slurm-wlm munge
      bison flex)   # needed only to build BookSim2 for scripts/validate_booksim.sh
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
