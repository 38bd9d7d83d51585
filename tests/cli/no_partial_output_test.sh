#!/usr/bin/env bash
# Issue #19: a command that fails writes no output file at all (every output path is checked
# before any work, multi-file outputs are committed all or none), and the error names the path
# with the real reason (never "Success").
# usage: no_partial_output_test.sh FTROUTE SCRATCH_DIR SOURCE_DIR
set -u
F=$1 S=$2 SRC=$3
N=$SRC/ibsim_topologies/nets
rm -rf "$S" && mkdir -p "$S" && cd "$S" || exit 1
fail=0
: > "$S/empty"   # not /dev/null: some sandboxes replace it by a regular file others write into
# expect_fail RC_REGEX MESSAGE_REGEX CMD...: exit code, one stderr line matching, empty directory after
expect_fail() {
  local rcre=$1 msgre=$2; shift 2
  rm -rf w && mkdir w && cd w
  timeout 60 "$@" >/dev/null 2>../err; local rc=$?
  cd ..
  local left; left=$(ls -A w)
  if ! [[ $rc =~ ^($rcre)$ ]]; then echo "FAIL (exit $rc): $*"; cat err; fail=1; return; fi
  if ! grep -Eq -- "$msgre" err; then echo "FAIL (message): $*"; cat err; fail=1; return; fi
  if grep -q ': Success' err; then echo "FAIL (errno 'Success'): $*"; cat err; fail=1; return; fi
  if [ -n "$left" ]; then echo "FAIL (left behind: $left): $*"; fail=1; return; fi
  echo "ok: $*"
}
expect_fail 1 'cannot write /nonexistent/dir/sl.txt: directory /nonexistent/dir: No such file' \
  "$F" route -e ft-dor "$N/torus4x4.net" -o x.dump --sl-out /nonexistent/dir/sl.txt
expect_fail 1 'cannot write /nonexistent/v.txt' \
  "$F" route -e ft-dor "$N/torus4x4.net" -o x.dump --sl-out sl.txt --sl2vl-out /nonexistent/v.txt
expect_fail 1 "cannot write $S/w: is a directory" \
  "$F" route -e ft-dor "$N/torus4x4.net" -o x.dump --sl-out "$S/w"
expect_fail 1 "cannot write $S/w: is a directory" "$F" route -e ft-minhop "$N/torus4x4.net" -o "$S/w"
expect_fail 1 'given for two outputs' "$F" route -e ft-dor "$N/torus4x4.net" -o x.dump --sl-out ./x.dump
expect_fail 1 'cannot write /nonexistent/x.svg' \
  "$F" sim --fabric "$N/torus4x4.net" --engine ft-dor --measure 200 --csv ok.csv --svg /nonexistent/x.svg
expect_fail 2 "unknown fabric kind 'garbage'" "$F" campaign --gen garbage:1 --engines ft-minhop --out D
expect_fail 1 'cannot write into' "$F" campaign --gen fattree:2,2 --engines ft-minhop --out /dev/null
expect_fail 1 'empty file' "$F" export -f "$N/torus4x4.net" -l "$S/empty" --to ibdmchk -o chk
expect_fail 1 'cannot write /nonexistent/o' "$F" export -f "$SRC/tests/data/lft/2sw4hca.net" \
  -l "$SRC/tests/data/lft/2sw4hca.opensm-lfts.dump" --to dump_fts -o /nonexistent/o
expect_fail 2 "--to must be" "$F" export -f "$N/torus4x4.net" -l x --to nonsense -o o
# campaign checks its pattern, window and OpenSM engine names before it writes anything
expect_fail 2 "unknown --pattern 'nosuch'" "$F" campaign --gen fattree:4,2 --engines ft-minhop --pattern nosuch --out D
expect_fail 2 "--pattern trace needs a trace file" "$F" campaign --gen fattree:4,2 --engines ft-minhop --pattern trace --out D
expect_fail 2 "--sim-cycles must be >= 1" "$F" campaign --gen fattree:4,2 --engines ft-minhop --pattern uniform --sim-cycles 0 --out D
expect_fail 2 "failure level '0' given twice" "$F" campaign --gen fattree:4,2 --engines ft-minhop --link-failures 0,1,0 --out D
expect_fail 2 "engine entry 'opensm:ftre': unknown engine 'ftre'" "$F" campaign --gen fattree:4,2 --engines opensm:ftre --out D
# sim's trace file through the checked reader: a directory, binary data
expect_fail 1 "is a directory" "$F" sim --fabric "$N/torus4x4.net" --engine ft-minhop --pattern trace --trace "$SRC"
expect_fail 1 "binary data" "$F" sim --fabric "$N/torus4x4.net" --engine ft-minhop --pattern trace --trace /dev/zero
# compare: an --opt without ENGINE: goes to every engine; the error says how to aim it
expect_fail 2 "unknown option 'vls' for engine 'ft-minhop'.*give it as --opt ENGINE:KEY=VALUE" \
  "$F" compare "$N/torus4x4.net" --engines ftree-misroute,ft-minhop --opt vls=2 -o x.txt
# a one-letter option with '=' (as --out=FILE): the value after it, not a file named "=..."
rm -rf w && mkdir w && (cd w && "$F" route -q -e ft-minhop "$N/torus4x4.net" -o=x.dump) && [ "$(ls -A w)" = x.dump ] ||
  { echo "FAIL: -o=x.dump wrote: $(ls -A w)"; fail=1; }
# --lmc outside 0..7, -1 included (it once meant "not given" inside route, compare and sim)
for cmd in route compare sim check; do
  case $cmd in
    route) args=(route -e ft-minhop "$N/torus4x4.net" -o x.dump) ;;
    compare) args=(compare "$N/torus4x4.net" --engines ft-minhop -o x.txt) ;;
    sim) args=(sim --fabric "$N/torus4x4.net" --engine ft-minhop --measure 10 --csv x.csv) ;;
    check) args=(check -f "$SRC/tests/data/lft/2sw4hca.net" -l "$SRC/tests/data/lft/2sw4hca.opensm-lfts.dump") ;;
  esac
  for v in -1 8; do expect_fail 2 "--lmc $v out of range \(0\.\.7\)" "$F" "${args[@]}" --lmc $v; done
done
expect_fail 1 'empty file' "$F" export "$S/empty" --to ibsim -o o.net
expect_fail 1 "cannot write $S/w: is a directory" "$F" export "$N/torus4x4.net" --to ibsim -o "$S/w"
expect_fail 1 'cannot write /nonexistent/o.net' "$F" export "$N/torus4x4.net" --to ibsim -o /nonexistent/o.net
expect_fail 1 "cannot write $S/w: is a directory" "$F" gen mesh --dims 4x4 -o "$S/w"
expect_fail 1 'empty file' "$F" route -e ft-minhop "$S/empty" -o x.dump
expect_fail 1 'is a directory' "$F" route -e ft-minhop "$N" -o x.dump
# stdout that cannot be written (a full disk: /dev/full) is an error, never exit 0 with the output
# lost; an output file that cannot be written is named, not called stdout
if [ -w /dev/full ]; then
  for cmd in "show-tree $N/4ary3tree.net" "engines" "gen fattree:4,2 -o -" "export $N/torus4x4.net --to ibsim -o -" \
             "check -f $SRC/tests/data/lft/2sw4hca.net -l $SRC/tests/data/lft/2sw4hca.opensm-lfts.dump" \
             "route -e ft-minhop $N/torus4x4.net -o x.dump --json" "compare $N/torus4x4.net --engines ft-minhop -q"; do
    rc=0; timeout 60 "$F" $cmd > /dev/full 2> err || rc=$?
    if [ $rc != 1 ] || ! grep -q "cannot write stdout" err; then echo "FAIL (exit $rc, stdout full): $cmd"; cat err; fail=1; fi
  done
  expect_fail 1 'cannot write /dev/full: No space' "$F" route -e ft-minhop "$N/torus4x4.net" -o /dev/full
else
  echo "skip: no /dev/full here"
fi
# and the good case writes all three
rm -rf w && mkdir w && (cd w && "$F" route -q -e ft-dor "$N/torus4x4.net" -o x.dump --sl-out sl.txt --sl2vl-out v.txt) &&
  [ -s w/x.dump ] && [ -s w/sl.txt ] && [ -s w/v.txt ] && [ "$(ls -A w | wc -l)" = 3 ] && echo "ok: all three written" ||
  { echo "FAIL: good route did not write exactly 3 files"; ls -A w; fail=1; }
exit $fail
