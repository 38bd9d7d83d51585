#!/usr/bin/env bash
# Multi-VL routings cross-checked with the real ibdmchk (Debian ibutils 1.5.7): for kns, ftdrb and
# ft-dor on a torus, `ftroute route --sl-out/--sl2vl-out` + `ftroute export --to ibdmchk` give
# ibdmchk every (source node, DLID) pair it traces, and ibdmchk's credit-loop verdict equals
# `ftroute check --pairs ibdmchk` (and `--pairs ibdmchk-a` vs `ibdmchk -a`), on deadlock-free
# routings and on deliberately cyclic ones (ft-dor with every SL forced to 0; kns without
# switch_sources checked with switch-to-switch pairs).
#
# ibdmchk 1.5.7 segfaults while exiting, after it printed its report: its exit status means
# nothing, so the verdict is read from its output lines "-I- no credit loops found" /
# "-E- credit loops in routing" (exactly one must be present).
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$1; NETS=$2; D=$3
command -v ibdmchk > /dev/null || { echo "SKIP: ibdmchk (Debian package ibutils) not installed"; exit 77; }
rm -rf "$D"; mkdir -p "$D"; cd "$D"
ulimit -c 0  # no core files from ibdmchk's crash on exit
fail() { echo "FAIL: $*"; exit 1; }

# ibdmchk_verdict DIR [-a] -> prints "loop" or "free"; fails if ibdmchk gave no verdict
ibdmchk_verdict() {
  local dir=$1; shift
  (cd "$dir" && timeout 300 ibdmchk "$@" -s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs \
     -c path_sl.txt -d sl2vl.txt > ibdmchk.out 2>&1) 2> /dev/null || true   # segfaults on exit (see above)
  local out=$dir/ibdmchk.out
  grep -q 'SL to destination is unassigned' "$out" && fail "ibdmchk $*: pairs missing from $dir/path_sl.txt"
  local free=0 loop=0
  grep -q -- '-I- no credit loops found' "$out" && free=1
  grep -q -- '-E- credit loops in routing' "$out" && loop=1
  [ $((free + loop)) -eq 1 ] || { cat "$out"; fail "ibdmchk $* in $dir: no credit-loop verdict"; }
  grep -q -- '-I- Scanned:' "$out" || fail "ibdmchk $* in $dir: no 'Scanned:' line"
  [ $loop -eq 1 ] && echo loop || echo free
}
# ftroute_verdict NAME FABRIC PAIRS -> "loop" or "free" (reachability must pass either way)
ftroute_verdict() {
  local n=$1 f=$2 pairs=$3 rc=0
  "$FT" check -f "$f" -l "$n.lfts" --sl "$n.sl" --sl2vl "$n.sl2vl" --pairs "$pairs" > "check_${n}_$pairs.out" 2>&1 || rc=$?
  [ $rc -le 1 ] || { cat "check_${n}_$pairs.out"; fail "ftroute check $n exit $rc"; }
  grep -q 'reachability    PASS' "check_${n}_$pairs.out" || { cat "check_${n}_$pairs.out"; fail "$n: reachability"; }
  if grep -q 'deadlock (CDG)  FAIL' "check_${n}_$pairs.out"; then
    [ $rc -eq 1 ] || fail "$n: deadlock FAIL but exit 0"; echo loop
  else
    grep -q 'deadlock (CDG)  PASS' "check_${n}_$pairs.out" || fail "$n: no deadlock line"; echo free
  fi
}
# compare NAME FABRIC PAIRS WANT: both tools give the same verdict, and it is WANT
compare() {
  local n=$1 f=$2 pairs=$3 want=$4
  local flag=""; [ "$pairs" = ibdmchk-a ] && flag=-a
  local ib ours
  ib=$(ibdmchk_verdict "chk_$n" $flag); ours=$(ftroute_verdict "$n" "$f" "$pairs")
  echo "$n ($pairs): ibdmchk $flag says $ib, ftroute check --pairs $pairs says $ours (want $want)"
  [ "$ib" = "$ours" ] || fail "$n: ibdmchk and ftroute check disagree"
  [ "$ib" = "$want" ] || fail "$n: expected $want"
}
route() {  # route NAME FABRIC ENGINE [opts]
  local n=$1 f=$2 e=$3; shift 3
  "$FT" route -q -e "$e" "$f" -o "$n.lfts" --sl-out "$n.sl" --sl2vl-out "$n.sl2vl" "$@"
  "$FT" export -f "$f" -l "$n.lfts" --sl "$n.sl" --sl2vl "$n.sl2vl" --to ibdmchk -o "chk_$n" 2> /dev/null
  local vls; vls=$(awk '{for(i=4;i<=NF;i++){print substr($i,3,1); print substr($i,4,1)}}' "$n.sl2vl" | sort -u | wc -l)
  [ "$vls" -ge 2 ] || fail "$n: routing uses $vls VL(s), the test wants a multi-VL one"
}

route kns "$NETS/kns_4x3_f3.net" kns
route ftdrb "$NETS/torus4x4.net" ftdrb
route dor "$NETS/torus4x4.net" ft-dor
compare kns "$NETS/kns_4x3_f3.net" ibdmchk free
compare kns "$NETS/kns_4x3_f3.net" ibdmchk-a loop     # no switch_sources: switch-to-switch routes cycle
compare ftdrb "$NETS/torus4x4.net" ibdmchk free
compare dor "$NETS/torus4x4.net" ibdmchk free
compare dor "$NETS/torus4x4.net" ibdmchk-a free

# Deliberately cyclic: E-cube DOR on a 4x4 torus with every path on SL 0 (no dateline VLs).
cp dor.lfts dor0.lfts; cp dor.sl2vl dor0.sl2vl
awk '/^0x/ {$3 = 0} {print}' dor.sl > dor0.sl
grep -q ' [1-9]$' dor.sl || fail "dor.sl has no SL != 0 to remove"
"$FT" export -f "$NETS/torus4x4.net" -l dor0.lfts --sl dor0.sl --sl2vl dor0.sl2vl --to ibdmchk -o chk_dor0 2> /dev/null
compare dor0 "$NETS/torus4x4.net" ibdmchk loop

# The bug this test guards: a path-SL file without the SL-0 pairs leaves ibdmchk without a verdict.
"$FT" route -q -e ft-dor "$NETS/torus4x4.net" -o sparse.lfts --sl-out sparse.sl --sl2vl-out sparse.sl2vl --sl-sparse
"$FT" export -f "$NETS/torus4x4.net" -l sparse.lfts --sl sparse.sl --sl2vl sparse.sl2vl --to ibdmchk -o chk_sparse 2> /dev/null
(cd chk_sparse && timeout 300 ibdmchk -s opensm-subnet.lst -f opensm.fdbs -m opensm.mcfdbs -c ../sparse.sl \
   -d sl2vl.txt > ibdmchk.out 2>&1) 2> /dev/null || true
grep -q 'SL to destination is unassigned' chk_sparse/ibdmchk.out || fail "ibdmchk accepted a sparse path-SL file?"
grep -q -- 'credit loops' chk_sparse/ibdmchk.out && fail "ibdmchk gave a verdict on a sparse path-SL file?"
lines_full=$(grep -c '^0x' dor.sl); lines_sparse=$(grep -c '^0x' sparse.sl)
[ "$lines_sparse" -lt "$lines_full" ] || fail "--sl-sparse wrote $lines_sparse lines, full $lines_full"
echo "PASS: ibdmchk and ftroute check agree on kns, ftdrb, ft-dor (torus) and a cyclic ft-dor"
