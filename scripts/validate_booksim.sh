#!/usr/bin/env bash
# Runs the BookSim2 validation matrix (issue 21, docs/flitsim.md "Validation against BookSim2"): the
# same configurations in BookSim2 and in flitsim (`ftroute sim --booksim-config`), over a load sweep,
# and writes a table and one SVG per configuration overlaying both simulators' curves.
#
#   scripts/validate_booksim.sh --booksim PATH        [--quick] [--only REGEX] [--out DIR] [--ftroute PATH]
#   scripts/validate_booksim.sh --build-booksim DIR   [...]     (build BookSim2 in DIR first)
#                               [--loads "L1,L2,.."]     these loads instead of each configuration's sweep
#                               [--flitsim-args "ARGS"]  extra `ftroute sim` options for every flitsim run
#                               [--booksim-args "K=V .."] extra BookSim2 assignments for every BookSim2 run
#                                                        (either: switch one model feature to isolate it)
#                               [--seeds N]              every point with seeds 0..N-1 in both simulators:
#                                                        means and the seeds' latency range (default 1)
#
# --booksim PATH       a BookSim2 binary (built outside this tree).
# --build-booksim DIR  DIR holds a BookSim2 checkout (git clone https://github.com/booksim/booksim2 DIR);
#                      cloned there when DIR does not exist and git can reach GitHub; then built with
#                      `make -C DIR/src` (needs bison and flex: scripts/install-deps.sh installs them).
#                      DIR must be outside this repository: BookSim2's code never enters the tree.
# --quick              a subset (8x8 mesh 1 VC/16-flit and 2 VC/4-flit, transpose, 8x8 torus, 8-ary 2-tree)
#                      with half the load points: a few minutes.
# Output (default build/validate-booksim[-quick]): matrix.md, matrix.csv, svg/*.svg, cfg/*.cfg, logs/.
# Exit 0 when every point produced numbers in both simulators (the targets are reported, not enforced:
# docs/flitsim.md explains each remaining difference).
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR

here=$(cd "$(dirname "$0")/.." && pwd)
FT="$here/build/cli/ftroute"
booksim=""
build_dir=""
quick=""
only=""
loads=""
out=""
fargs=""
bargs=""
seeds=""
while [ $# -gt 0 ]; do
  case "$1" in
    --booksim) booksim="$2"; shift ;;
    --build-booksim) build_dir="$2"; shift ;;
    --quick) quick="--quick" ;;
    --only) only="$2"; shift ;;
    --loads) loads="$2"; shift ;;
    --out) out="$2"; shift ;;
    --ftroute) FT="$2"; shift ;;
    --flitsim-args) fargs="$2"; shift ;;
    --booksim-args) bargs="$2"; shift ;;
    --seeds) seeds="$2"; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "validate_booksim.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$booksim" ] || [ -n "$build_dir" ] || { echo "validate_booksim.sh: give --booksim PATH or --build-booksim DIR" >&2; exit 2; }
[ -x "$FT" ] || { echo "validate_booksim.sh: ftroute binary not found: $FT (build it or pass --ftroute)" >&2; exit 2; }

if [ -n "$build_dir" ]; then
  mkdir -p "$(dirname "$build_dir")"
  abs=$(cd "$(dirname "$build_dir")" && pwd)/$(basename "$build_dir")
  case "$abs/" in
    "$here"/*) echo "validate_booksim.sh: $build_dir is inside the ftroute tree; build BookSim2 outside it" >&2; exit 2 ;;
  esac
  if [ ! -f "$abs/src/Makefile" ]; then
    [ -e "$abs" ] && { echo "validate_booksim.sh: $abs exists but has no src/Makefile (not a BookSim2 checkout)" >&2; exit 2; }
    echo "validate_booksim.sh: cloning BookSim2 into $abs"
    timeout 600 git clone --depth 1 https://github.com/booksim/booksim2 "$abs" \
      || { echo "validate_booksim.sh: cannot clone BookSim2; fetch it into $abs yourself" >&2; exit 1; }
  fi
  for t in bison flex make g++; do
    command -v "$t" >/dev/null || { echo "validate_booksim.sh: $t is needed to build BookSim2 (scripts/install-deps.sh)" >&2; exit 1; }
  done
  echo "validate_booksim.sh: building BookSim2 in $abs/src"
  nice make -C "$abs/src" -j2 >"$abs/build.log" 2>&1 \
    || { echo "validate_booksim.sh: BookSim2 build failed, see $abs/build.log" >&2; exit 1; }
  booksim="$abs/src/booksim"
fi
[ -x "$booksim" ] || { echo "validate_booksim.sh: BookSim2 binary not found: $booksim" >&2; exit 2; }

out=${out:-$here/build/validate-booksim${quick:+-quick}}
mkdir -p "$out"
echo "validate_booksim.sh: BookSim2 $booksim, flitsim $FT, output $out"
exec python3 "$here/scripts/booksim_matrix.py" --booksim "$booksim" --ftroute "$FT" --out "$out" $quick \
  ${only:+--only "$only"} ${loads:+--loads "$loads"} ${fargs:+--flitsim-args "$fargs"} ${bargs:+--booksim-args "$bargs"} ${seeds:+--seeds "$seeds"}
