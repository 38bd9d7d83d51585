#!/usr/bin/env bash
# CLI tests of the documented `ftroute` commands (README "The `ftroute` command"), one ctest each
# (cli.<command>, tests/CMakeLists.txt):
#   commands_test.sh FTROUTE WORKDIR COMMAND
# Each runs the built binary on a shipped fabric (ibsim_topologies/nets, tests/data/lft), checks
# the key facts of its output and its exit status, and at least one failure path: exit 1 (bad
# input) or 2 (usage), exactly one "ftroute <command>: ..." error line, and no output file left.
# COMMAND: export export-ibsim compare campaign-table kns-size kns-faults kns-waypoints dqr-eval engines check
#          opensm-file-engine (real ibsim + OpenSM; exit 77 = skipped when they are missing)
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$(readlink -f "$1"); W=$2; CMD=$3
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NETS=$REPO/ibsim_topologies/nets
LFT=$REPO/tests/data/lft
rm -rf "$W"; mkdir -p "$W"; cd "$W"
fail() { echo "FAIL ($CMD): $*"; exit 1; }
has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2':"$'\n'"$(cat "$1")"; }

# expect_error STATUS OUTPUT -- ARGS...: `ftroute ARGS` exits with STATUS, prints exactly one
# "ftroute <cmd>: ..." line on stderr (usage errors add "see 'ftroute <cmd> --help'"), and leaves no
# OUTPUT (file or directory, nor a temporary OUTPUT.tmp.*) behind. OUTPUT "-" = none expected.
expect_error() {
  local want=$1 out=$2; shift 3
  local rc=0
  "$FT" "$@" > err.stdout 2> err.stderr || rc=$?
  [ "$rc" -eq "$want" ] || fail "ftroute $* exited $rc, expected $want"$'\n'"$(cat err.stderr)"
  local n
  n=$(grep -c "^ftroute $1: " err.stderr || true)
  [ "$n" -eq 1 ] || fail "ftroute $*: $n error lines on stderr, expected 1:"$'\n'"$(cat err.stderr)"
  if [ "$out" != "-" ]; then
    ! ls -d "$out" "$out".tmp.* > /dev/null 2>&1 || fail "ftroute $* left $(ls -d "$out"*)"
  fi
  echo "ok: ftroute $* -> exit $rc: $(grep "^ftroute $1: " err.stderr)"
}

case $CMD in
export)
  # OpenSM's own minhop tables of ft4x2 (captured under ibsim, tests/data/lft/capture.sh):
  # opensm-lfts -> dump_fts -> opensm-lfts is byte-identical, and the ibdmchk files equal the
  # ones OpenSM wrote for the same routing.
  "$FT" export -f "$LFT/ft4x2.net" -l "$LFT/ft4x2.opensm-lfts.dump" --to dump_fts -o fts.txt
  [ "$(grep -c '^Unicast lids' fts.txt)" -eq 6 ] || fail "dump_fts output has not 6 switch blocks"
  has fts.txt "0x0005 002 : (Channel Adapter portguid 0x0000000000100003: 'H0_1')"
  "$FT" export -f "$LFT/ft4x2.net" -l fts.txt --to opensm-lfts -o back.dump
  cmp back.dump "$LFT/ft4x2.opensm-lfts.dump" || fail "opensm-lfts -> dump_fts -> opensm-lfts is not the identity"
  # dump_fts as the real tool printed it (DR-path switch names) reads back to OpenSM's file too
  "$FT" export -f "$LFT/ft4x2.net" -l "$LFT/ft4x2.dump_fts" --to opensm-lfts -o back2.dump
  cmp back2.dump "$LFT/ft4x2.opensm-lfts.dump" || fail "dump_fts (real) -> opensm-lfts differs from OpenSM's dump"
  "$FT" export -f "$LFT/ft4x2.net" -l "$LFT/ft4x2.opensm-lfts.dump" --to ibdmchk -o chk > chk.out
  cmp chk/opensm.fdbs "$LFT/ft4x2.opensm.fdbs" || fail "opensm.fdbs differs from OpenSM's"
  cmp chk/opensm.mcfdbs "$LFT/ft4x2.opensm.mcfdbs" || fail "opensm.mcfdbs differs from OpenSM's"
  # the subnet list names the same ports (LID, port number) on both ends of the same 2 x 20 links
  ends() { grep -o 'LID:[0-9A-Fa-f]* PN:[0-9]*' "$1" | paste - - | sort; }
  [ "$(ends chk/opensm-subnet.lst | wc -l)" -eq 40 ] || fail "opensm-subnet.lst: not 40 link ends"
  [ "$(ends chk/opensm-subnet.lst)" = "$(ends "$LFT/ft4x2.opensm-subnet.lst")" ] ||
    fail "opensm-subnet.lst links differ from OpenSM's"
  expect_error 1 out.txt -- export -f "$LFT/ft4x2.net" -l missing.dump --to dump_fts -o out.txt
  expect_error 2 out.txt -- export -f "$LFT/ft4x2.net" -l "$LFT/ft4x2.dump_fts" --to bogus -o out.txt
  expect_error 1 outdir -- export -f "$LFT/missing.net" -l "$LFT/ft4x2.dump_fts" --to ibdmchk -o outdir
  ;;
export-ibsim)
  # production-shaped fabrics (issue 27): the three presets, the gen round trip (SPEC and the
  # legacy --KEY spelling give the same bytes), a chassis sharing its GUID written the way
  # ibnetdiscover writes it, and `export --to ibsim` making it loadable (idempotent)
  DATA=$REPO/tests/data/net
  for p in hdr-3tier:206:1331 edr-director:178:1654 hdr-mcs8500:192:1182; do
    IFS=: read -r name sw ca <<< "$p"
    "$FT" gen "ctree:preset=$name" -o "$name.net" 2> gen.err
    has gen.err "wrote $name.net: $sw switches, $ca CAs"
  done
  "$FT" gen ctree --preset hdr-mcs8500 -o legacy.net 2> /dev/null
  cmp legacy.net hdr-mcs8500.net || fail "gen ctree --preset differs from gen ctree:preset="
  has hdr-mcs8500.net "switchguid=0x300000(200048)"
  has hdr-mcs8500.net "ibsim refuses this file"
  has hdr-mcs8500.net '# "MF0;dirA:MCS8500/L01/U1"'
  [ "$(grep -c 'Mellanox Technologies Aggregation Node' hdr-3tier.net)" -eq 206 ] || fail "hdr-3tier: not 206 ANs"
  "$FT" export hdr-mcs8500.net --to ibsim -o mcs-ibsim.net 2> exp.err
  has exp.err "ftroute export: warning: hdr-mcs8500.net:"
  has exp.err "changed for ibsim: 120 switches with a shared node GUID"
  has exp.err "wrote mcs-ibsim.net: 192 switches, 1182 CAs, 4222 links"
  ! grep -q "switchguid=0x30000" mcs-ibsim.net || fail "the export still shares the chassis GUIDs"
  "$FT" export mcs-ibsim.net --to ibsim -o again.net 2> again.err
  ! grep -q "changed for ibsim" again.err || fail "exporting the export changed it again: $(cat again.err)"
  diff <(grep -v '^#' mcs-ibsim.net) <(grep -v '^#' again.net) > /dev/null || fail "export --to ibsim is not idempotent"
  # a real ibnetdiscover dump (tests/data/net/ibnetdiscover_director.net): LIDs and 4xHDR kept
  "$FT" export -f "$DATA/ibnetdiscover_director.net" --to ibsim -o dir.net 2> dir.err
  has dir.err "wrote dir.net: 16 switches, 25 CAs, 49 links"
  has dir.net '"MF0;dirA:CS7500/L01/U1" lid 7 lmc 0'
  has dir.net "s=7	e=7"
  # hostile descriptions stay inside their quotes
  sed 's/# "H0_0_0"/# "say \"hi\" lid 99\t\"/' "$DATA/ibnetdiscover_director.net" > hostile.txt
  "$FT" export hostile.txt --to ibsim -o hostile.net 2> hostile.err
  has hostile.err "1 node description changed for ibsim"
  has hostile.err 'e.g. "say \"hi\" lid 99\x09" -> "say '"'hi'"' lid 99?"'   # quoted as names are
  has hostile.net "# \"say 'hi' lid 99?\""
  # bad input: a pasted shell prompt is file:line; usage errors; nothing written
  { echo 'admin@mgmt01:~$ ibnetdiscover > fabric.txt'; cat "$DATA/ibnetdiscover_director.net"; } > prompt.txt
  expect_error 1 out.net -- export prompt.txt --to ibsim -o out.net
  has err.stderr "ftroute export: prompt.txt:1: unrecognised line"
  expect_error 1 out.net -- export missing.txt --to ibsim -o out.net
  expect_error 2 out.net -- export "$DATA/ibnetdiscover_director.net" --to ibsim -l x.dump -o out.net
  expect_error 2 out.net -- export "$DATA/ibnetdiscover_director.net" --to ibsim
  expect_error 2 out.net -- gen ctree:preset=nope -o out.net
  ;;
compare)
  # 4-ary 3-tree with 3 failed links: ftree-misroute tolerates every set of up to 3 faults on one
  # VL; ft-minhop is reachable and loop-free but has a CDG cycle; OpenSM's ft4x2 tables do not
  # belong to this fabric (LIDs matched by port GUID: most are unreachable).
  "$FT" compare "$NETS/4ary3tree_f3.net" --engines ftree-misroute,ft-minhop \
    --lfts other=$LFT/ft4x2.opensm-lfts.dump -o cmp.txt
  has cmp.txt "48 switches, 64 CAs/routers"
  grep -Eq '^ftree-misroute +PASS +0 +0 acyclic +1 ' cmp.txt || fail "ftree-misroute row:"$'\n'"$(cat cmp.txt)"
  grep -Eq '^ft-minhop +FAIL +0 +0 CYCLE ' cmp.txt || fail "ft-minhop row:"$'\n'"$(cat cmp.txt)"
  grep -Eq '^other +FAIL +[1-9][0-9]* .*\(from file\)' cmp.txt || fail "file row:"$'\n'"$(cat cmp.txt)"
  [ "$(sed '/^$/,$d' cmp.txt | grep -c '^[a-z]')" -eq 5 ] || fail "expected fabric line, header and 3 rows"
  # the recommendation after the table: ftree-misroute passed, ft-minhop did not (credit loop); the
  # dump is no engine, so neither a candidate nor rejected; OpenSM's engines were not run
  has cmp.txt "Recommendation: ftree-misroute"
  grep -Eq '^  not usable: ft-minhop: credit loop \(CDG cycle\): "' cmp.txt || fail "ft-minhop not rejected"
  ! grep -q 'not usable: other' cmp.txt || fail "the LFT dump was judged as an engine"
  has cmp.txt "(OpenSM's own engines were not checked: add --opensm updn,ftree,minhop,dfsssp)"
  grep -qx 'routing_engine ftree-misroute' cmp.txt || fail "routing_engine line:"$'\n'"$(cat cmp.txt)"
  grep -qx 'event_plugin_name ftroute' cmp.txt || fail "no event_plugin_name line"
  ! grep -q '^qos TRUE' cmp.txt || fail "qos TRUE for a 1-VL routing"
  has cmp.txt "# when every engine above fails, OpenSM routes with its built-in minhop; minhop was not checked here"
  # options of the chosen engine go to event_plugin_options
  "$FT" compare "$NETS/4ary3tree_f3.net" --engines ftree-misroute --opt ftree-misroute:max_valleys=4 > opt.txt
  grep -qx 'event_plugin_options ftree-misroute:max_valleys=4' opt.txt || fail "event_plugin_options:"$'\n'"$(cat opt.txt)"
  # an engine variant NAME[k=v]: a row of its own, the table aligned on the longest name, its
  # options to the plugin under the engine's name
  "$FT" compare "$NETS/4ary3tree_f3.net" --engines 'ft-minhop,ftree-misroute[max_valleys=4]' > var.txt
  grep -Eq '^name {26}result unreachable' var.txt ||  # 29 characters of "ftree-misroute[max_valleys=4]"
    fail "variant header:"$'\n'"$(cat var.txt)"
  grep -Eq '^ftree-misroute\[max_valleys=4\] PASS ' var.txt || fail "variant row:"$'\n'"$(cat var.txt)"
  grep -qx 'event_plugin_options ftree-misroute:max_valleys=4' var.txt || fail "variant plugin options:"$'\n'"$(cat var.txt)"
  grep -qx 'routing_engine ftree-misroute' var.txt || fail "variant conf name:"$'\n'"$(cat var.txt)"
  # nothing passes: said so, with the reason, and no opensm.conf lines
  "$FT" compare "$NETS/4ary3tree_f3.net" --engines ft-minhop > none.txt
  has none.txt "Recommendation: none - no engine passes every check on this fabric:"
  grep -Eq '^  ft-minhop: credit loop \(CDG cycle\)' none.txt || fail "no reason:"$'\n'"$(cat none.txt)"
  ! grep -q '^routing_engine' none.txt || fail "a routing_engine line although nothing passed"
  # an engine that refuses the fabric is listed as REFUSED (ft-dor needs a mesh/torus)
  "$FT" compare "$NETS/4ary3tree.net" --engines ft-dor > refused.txt
  grep -Eq '^ft-dor +REFUSED' refused.txt || fail "ft-dor on a fat tree:"$'\n'"$(cat refused.txt)"
  expect_error 1 cmp2.txt -- compare "$NETS/missing.net" --engines ft-minhop -o cmp2.txt
  expect_error 2 cmp2.txt -- compare "$NETS/4ary3tree.net" --engines no-such-engine -o cmp2.txt
  # --opensm without the simulator: one line naming what is missing, exit 1, no output
  FTROUTE_FTSIM=/nonexistent/ftsim.sh expect_error 1 cmp2.txt -- compare "$NETS/4ary3tree.net" --opensm updn -o cmp2.txt
  grep -q "ftroute compare: --opensm needs ibsim and OpenSM: cannot read the ibsim/OpenSM script '/nonexistent/ftsim.sh'" \
    err.stderr || fail "missing ftsim.sh not named: $(cat err.stderr)"
  mkdir -p nosim
  for p in bash timeout; do ln -sf "$(command -v $p)" nosim/$p; done
  if [ ! -e /usr/sbin/ibsim ] && [ ! -e /sbin/ibsim ]; then  # ibsim is looked for on $PATH, /usr/sbin, /sbin
    rc=0
    PATH=$PWD/nosim "$FT" compare "$NETS/4ary3tree.net" --opensm updn -o cmp2.txt > err.stdout 2> err.stderr || rc=$?
    [ "$rc" -eq 1 ] && [ "$(wc -l < err.stderr)" -eq 1 ] && [ ! -e cmp2.txt ] ||
      fail "without ibsim: exit $rc, stderr: $(cat err.stderr)"
    grep -q "^ftroute compare: --opensm needs ibsim and OpenSM: 'ibsim' not found (package ibsim-utils)$" err.stderr ||
      fail "missing ibsim not named: $(cat err.stderr)"
    echo "ok: without ibsim on PATH -> exit 1: $(cat err.stderr)"
  fi
  expect_error 2 cmp2.txt -- compare "$NETS/4ary3tree.net" --opensm bogus -o cmp2.txt
  expect_error 2 cmp2.txt -- compare "$NETS/4ary3tree.net" --opensm file -o cmp2.txt
  expect_error 2 cmp2.txt -- compare "$NETS/4ary3tree.net" --keep-scratch kept -o cmp2.txt
  expect_error 2 cmp2.txt -- compare "$NETS/4ary3tree.net" --opensm updn --opensm-timeout 1 -o cmp2.txt
  ;;
campaign-table)
  # a small campaign of 2 engines x {0, 2} failed links x 2 seeds on the shipped 4-ary 3-tree
  "$FT" campaign --fabric "$NETS/4ary3tree.net" --engines ftree-misroute,ft-minhop --link-failures 0,2 \
    --seeds 2 -j 1 -q --out camp > /dev/null
  "$FT" campaign-table camp --engines ft-minhop,ftree-misroute > table.md
  rows=$(grep -c '^| 4ary3tree.net |' table.md || true)
  [ "$rows" -eq 4 ] || fail "$rows rows, expected 2 fault levels x 2 engines:"$'\n'"$(cat table.md)"
  # --engines orders the rows within a fault level
  grep '^| 4ary3tree.net | 0 links' table.md | sed -n 1p | grep '| ft-minhop |' > /dev/null || fail "row order"
  # ftree-misroute tolerates every set of <= 3 link faults: 2/2 at both levels, 1 VL
  [ "$(grep -Ec '^\| 4ary3tree.net \| [02] links \| ftree-misroute \| 2/2 \| 1 \|' table.md)" -eq 2 ] ||
    fail "ftree-misroute not 2/2 on 1 VL:"$'\n'"$(cat table.md)"
  # EFI max (worst) of every row = the largest efi_max of its runs in results.csv
  python3 - camp/results.csv table.md <<'PY' || fail "table EFI differs from results.csv"
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for line in open(sys.argv[2]):
    m = re.match(r"\| 4ary3tree.net \| (\d+) links \| (\S+) \| \d+/\d+ \| \d+ \| [\d.]+ \((\d+)\)", line)
    if not m:
        continue
    worst = max(int(r["efi_max"]) for r in rows if r["link_failures"] == m[1] and r["engine"] == m[2])
    assert worst == int(m[3]), (line, worst)
    print("ok:", m[2], m[1], "links: worst EFI", worst)
PY
  # --lost: the routes of the intact routing the faults cut, median (min-max) of results.csv's
  # lost_routes per row; nothing lost without faults
  "$FT" campaign-table camp --lost > lost.md
  [ "$(grep -c '^| 4ary3tree.net | 0 links | [a-z-]* | 2 | 0 \[0-0\] (0-0) | 0.0 | 0.0 | - | - |$' lost.md)" -eq 2 ] ||
    fail "fault-free rows of --lost:"$'\n'"$(cat lost.md)"
  python3 - camp/results.csv lost.md <<'PY' || fail "--lost differs from results.csv"
import csv, re, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = 0
for line in open(sys.argv[2]):
    m = re.match(r"\| 4ary3tree.net \| 2 links \| (\S+) \| 2 \| (\S+) \[\S+\] \((\d+)-(\d+)\) \| ([\d.]+) \| ([\d.]+) \|", line)
    if not m:
        continue
    v = [int(r["lost_routes"]) for r in rows if r["link_failures"] == "2" and r["engine"] == m[1]]
    e6 = [float(r["lost_eq6"]) for r in rows if r["link_failures"] == "2" and r["engine"] == m[1]]
    assert min(v) > 0 and float(m[2]) == statistics.median(v) and (int(m[3]), int(m[4])) == (min(v), max(v)), (line, v)
    assert abs(float(m[6]) - sum(e6) / len(e6)) < 0.05, (line, e6)
    n += 1
    print("ok:", m[1], "2 links: lost routes", v, "Eq. 6", e6)
assert n == 2, n
PY
  expect_error 2 - -- campaign-table camp --lost --json
  expect_error 1 - -- campaign-table missing-dir
  ;;
kns-size)
  # every count of the generated fabric equals the thesis formula (crossbar and fat-tree subnets)
  for args in "--k 4 --n 2" "--k 4 --n 2 --p 2" "--k 4 --n 2 --ki 2"; do
    # shellcheck disable=SC2086
    "$FT" kns-size $args > size.txt
    has size.txt "4-ary 2-direct"
    n=$(awk 'NF >= 3 && $(NF-1) ~ /^[0-9]+$/ && $NF ~ /^[0-9]+$/ { k++; if ($(NF-1) != $NF) bad = bad "\n" $0 }
             END { if (bad != "") { print "MISMATCH" bad; exit } print k }' size.txt)
    [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 10 ] || fail "kns-size $args: formula != fabric: $n"$'\n'"$(cat size.txt)"
    echo "ok: kns-size $args: $n rows, formula = fabric"
  done
  has size.txt "2-indirect (2-ary fat-tree)"
  "$FT" kns-size --k 4 --n 2 > size.txt
  grep -Eq '^processing nodes N \(CAs\) +16 +16$' size.txt || fail "N of a 4-ary 2-D KNS is not 16"
  grep -Eq '^routers k\^n \(IB switches\) +16 +16$' size.txt || fail "k^n routers"
  expect_error 2 - -- kns-size --n 2
  expect_error 2 - -- kns-size --k 4 --n two
  ;;
kns-faults)
  "$FT" kns-faults --k 4 --n 2 --faults 1 --faults 3 --samples 200 --max-in 1 > f.txt
  has f.txt "16 routers, 32 router-crossbar links (fault population)"
  # one failed link is always served with one intermediate router (thesis); 3 are not always
  grep -Eq '^ +1 +1 +200 +100\.000 ' f.txt || fail "1 fault not 100 %:"$'\n'"$(cat f.txt)"
  tol3=$(awk '$1 == 3 && $2 == 1 { print $4 }' f.txt)
  python3 -c "import sys; t = float('$tol3'); sys.exit(0 if 0 < t < 100 else 1)" || fail "3 faults: $tol3 %"
  # the count of failing sets printed below the table matches the percentage
  notol=$(sed -nE 's/.* of the ([0-9]+) sets not tolerated.*/\1/p' f.txt)
  python3 -c "import sys; sys.exit(0 if round(200 * (100 - $tol3) / 100) == $notol else 1)" ||
    fail "$notol failing sets vs $tol3 % of 200"
  # router-count: the sets of replace, and the ones that hit a router twice counted as failing too;
  # the two counts below the table add up to the sets not tolerated
  "$FT" kns-faults --k 4 --n 2 --faults 3 --samples 200 --max-in 2 --draw router-count > rc.txt
  has rc.txt "draw router-count"
  tolrc=$(awk '$1 == 3 && $2 == 2 { print $4 }' rc.txt)
  routing=$(sed -nE 's/.* of the ([0-9]+) sets not tolerated.*/\1/p' rc.txt)
  counted=$(sed -nE 's/^ +([0-9]+) more sets counted as not tolerated \(router-count\).*/\1/p' rc.txt)
  [ -n "$counted" ] || fail "no router-count line:"$'\n'"$(cat rc.txt)"
  python3 -c "import sys; sys.exit(0 if round(200 * (100 - $tolrc) / 100) == ${routing:-0} + $counted else 1)" ||
    fail "router-count: ${routing:-0} + $counted failing sets vs $tolrc % of 200"
  expect_error 2 - -- kns-faults --k 4 --n 2
  expect_error 2 - -- kns-faults --k 4 --n 2 --faults 40  # more than the 32 links
  expect_error 2 - -- kns-faults --k 4 --n 2 --faults 3 --draw birthday
  ;;
kns-waypoints)
  # The thesis' per-pair intermediate routers of a faulty 4-ary 2-D KNS, replayed by `sim
  # --waypoints` over the fault-free Hybrid-DOR tables: without them packets run into the failed
  # links, with them every packet arrives.
  "$FT" gen kns:4,2 -o ok.net > /dev/null
  "$FT" gen kns:4,2 --fail-links 3 --seed 2 --keep-connected -o f.net > /dev/null
  "$FT" route -e kns ok.net -o dor.lfts 2> /dev/null
  "$FT" kns-waypoints f.net -o w.txt 2> w.err
  has w.txt "4-ary 2-direct KNS, 3 failed link(s), max-in 2, ties first, length shortest"
  has w.err "router pairs need intermediate routers"
  n=$(grep -c '^"' w.txt)
  [ "$n" -gt 0 ] || fail "no waypoint lines:"$'\n'"$(cat w.txt)"
  sim() { "$FT" sim --fabric f.net --lfts dor.lfts --pattern uniform --load 0.05 --warmup 200 --measure 2000 "$@" 2> /dev/null; }
  sim --vcs 3 > bare.txt
  grep -Eq 'dropped [1-9][0-9]*: LFT port missing or unlinked' bare.txt || fail "DOR alone drops nothing:"$'\n'"$(cat bare.txt)"
  sim --vcs 3 --waypoints w.txt > via.txt
  sim --vcs 3 --waypoints w.txt --json > via.json
  python3 -c "import json, sys; d = json.load(open('via.json')); r = d['routing']; p = d['points'][0]
assert r == {'lfts': 'dor.lfts', 'waypoints': 'w.txt'}, r
assert p['packets']['dropped'] == 0 and p['packets']['delivered'] == p['packets']['generated'], p['packets']" ||
    fail "sim --json with --waypoints:"$'\n'"$(cat via.json)"
  grep -Eq '^packets: generated ([0-9]+) = delivered \1 \+ dropped 0 ' via.txt || fail "waypoints lost packets:"$'\n'"$(cat via.txt)"
  "$FT" kns-waypoints f.net -o wr.txt --ties random --seed 3 2> /dev/null
  [ "$(grep -c '^"' wr.txt)" -eq "$n" ] || fail "random ties changed the pairs"
  "$FT" kns-waypoints f.net -o wm.txt --length minimal-first 2> /dev/null
  has wm.txt "ties first, length minimal-first"
  [ "$(grep -c '^"' wm.txt)" -eq "$n" ] || fail "--length minimal-first changed the pairs"
  # --sl-spread 3: traffic over the 3 VCs, the waypoint legs still within them
  sim --vcs 3 --waypoints wm.txt --sl-spread 3 > spread.txt
  grep -Eq '^packets: generated ([0-9]+) = delivered \1 \+ dropped 0 ' spread.txt || fail "--sl-spread lost packets:"$'\n'"$(cat spread.txt)"
  sim --vcs 3 --waypoints wm.txt --sl-spread 3 --json > spread.json
  python3 -c "import json; r = json.load(open('spread.json'))['routing']; assert r['sl_spread'] == 3 and r['waypoints'] == 'wm.txt', r" ||
    fail "sim --json with --sl-spread:"$'\n'"$(cat spread.json)"
  expect_error 2 - -- sim --fabric f.net --lfts dor.lfts --vcs 3 --sl-spread 4
  grep -q "needs as many VCs" err.stderr || fail "--sl-spread 4: $(cat err.stderr)"
  expect_error 2 - -- sim --fabric f.net --lfts dor.lfts --vcs 1 --waypoints w.txt  # a leg per VC
  printf '"H_0_0_0" "nope" "R_0_3"\n' > bad.txt
  expect_error 1 - -- sim --fabric f.net --lfts dor.lfts --vcs 3 --waypoints bad.txt
  grep -q 'bad.txt:1' err.stderr || fail "no file:line in $(cat err.stderr)"
  expect_error 2 w2.txt -- kns-waypoints f.net -o w2.txt --ties bogus
  expect_error 2 w2.txt -- kns-waypoints f.net -o w2.txt --length longest
  expect_error 2 w2.txt -- kns-waypoints f.net -o w2.txt --max-in 3
  expect_error 1 w2.txt -- kns-waypoints "$NETS/4ary3tree.net" -o w2.txt  # not a KNS
  grep -q "kns" err.stderr || fail "not a KNS: $(cat err.stderr)"
  ;;
dqr-eval)
  "$FT" dqr-eval --sizes 4 --runs 5 --faults 2 --variants local-all,mesh-all -o dqr.md 2> dqr.err
  has dqr.md "5 runs per point"
  # a single fault is always repaired: the mesh plug-in guarantees one fault (paper), and local
  # repair served every single fault of the 10x10/20x20 meshes (docs/dqr.md)
  grep -Eq '^\| 4x4 mesh, dor \| local-all \| 100\.0 \| [0-9.]+ \|$' dqr.md || fail "local-all P(1):"$'\n'"$(cat dqr.md)"
  grep -Eq '^\| 4x4 mesh, dor \| mesh-all \| 100\.0 \| [0-9.]+ \|$' dqr.md || fail "mesh-all P(1):"$'\n'"$(cat dqr.md)"
  # tables: success probability, rerouted flows, joint refusals (turns=all)
  [ "$(grep -c '^| 4x4 mesh, dor |' dqr.md)" -eq 6 ] || fail "expected 2 variants x 3 tables"
  expect_error 2 bad.md -- dqr-eval --sizes 4 --variants bogus -o bad.md
  # a base engine with options (ft-lash with its layers balanced): named so in every row
  "$FT" dqr-eval --sizes "" --tori 4 --base 'ft-lash[fill=even]' --runs 2 --faults 1 --variants local-all -o lash.md 2> lash.err
  [ "$(grep -c '^| 4x4 torus, ft-lash\[fill=even\] (2 layers) |' lash.md)" -eq 3 ] || fail "ft-lash[fill=even] rows:"$'\n'"$(cat lash.md)"
  expect_error 2 bad.md -- dqr-eval --sizes "" --tori 4 --base 'ft-lash[fil=even]' -o bad.md
  grep -q "unknown option 'fil'" err.stderr || fail "unknown base option: $(cat err.stderr)"
  expect_error 2 bad.md -- dqr-eval --sizes 4 --base opensm:lash -o bad.md
  expect_error 1 missing.md -- dqr-eval --sizes 4 --runs 1 --faults 1 --variants local-all --update missing.md
  ;;
engines)
  "$FT" engines > engines.txt
  # every engine of the README's engine table, each with its options line
  for e in ftree-misroute kns ftdrb dqr ft-minhop ft-dor ft-lash lft-file; do
    grep -Eq "^$e +[A-Za-z]" engines.txt || fail "engine $e not listed"$'\n'"$(cat engines.txt)"
  done
  [ "$(grep -c '^[a-z]' engines.txt)" -eq 8 ] || fail "expected 8 engines"
  [ "$(grep -c '^ *options: ' engines.txt)" -eq 8 ] || fail "expected an options line per engine"
  # each option with its default and meaning (the exit status says every option is described)
  grep -Eq '^ +max_valleys +8 +automatic valley-leaf' engines.txt || fail "ftree-misroute max_valleys default/meaning"
  grep -Eq '^ +max_alternatives +4 +alternative paths' engines.txt || fail "ftdrb max_alternatives default/meaning"
  grep -Eq '^ +paths +local +local = ' engines.txt || fail "dqr paths default/meaning"
  grep -Eq '^ +file +\(required\) +LFT dump' engines.txt || fail "lft-file file= not listed as required"
  "$FT" engines --json | python3 -c '
import json, sys
e = {x["name"]: {o["key"]: o for o in x["options"]} for x in json.load(sys.stdin)["engines"]}
assert e["lft-file"]["file"]["required"] is True, e["lft-file"]
assert e["lft-file"]["sl"]["required"] is False
assert not any(o["required"] for n, opts in e.items() if n != "lft-file" for o in opts.values())
' || fail "engines --json: required"
  expect_error 2 x.dump -- route --gen fattree:4,2 -e lft-file -o x.dump
  grep -q "engine 'lft-file' needs option file=VALUE" err.stderr || fail "route -e lft-file without file=: $(cat err.stderr)"
  ! grep -q 'undocumented' engines.txt || fail "an option without a description"
  # none may shadow an OpenSM built-in (the plugin registers them next to OpenSM's own)
  for b in minhop updn dnup ftree lash dor torus-2QoS nue dfsssp sssp file; do
    ! grep -Eq "^$b " engines.txt || fail "engine named like OpenSM's built-in $b"
  done
  expect_error 2 - -- engines --bogus
  ;;
check)
  # exit 0 on OpenSM's own minhop tables, exit 1 when they are broken:
  "$FT" check -f "$LFT/ft4x2.net" -l "$LFT/ft4x2.opensm-lfts.dump" > ok.txt
  has ok.txt "RESULT: PASS"
  # L0 sends H0_1's LID (5) out of port 1, to H0_0: the 11 other CAs reach the wrong CA
  sed '0,/^0x0005 002/s//0x0005 001/' "$LFT/ft4x2.opensm-lfts.dump" > wrong-ca.dump
  ! cmp -s wrong-ca.dump "$LFT/ft4x2.opensm-lfts.dump" || fail "sed did not change the dump"
  rc=0; "$FT" check -f "$LFT/ft4x2.net" -l wrong-ca.dump > bad.txt || rc=$?
  [ $rc -eq 1 ] || fail "check of a table delivering to the wrong CA exited $rc"$'\n'"$(cat bad.txt)"
  has bad.txt "204 pairs, 193 delivered, 11 unreachable"
  has bad.txt "11 x delivered to a node that does not own the LID"
  has bad.txt 'stops at "H0_0"[1]'
  has bad.txt "RESULT: FAIL (unreachable pairs)"
  # OpenSM's minhop on a ring of 4 has a credit loop once switches send too (ibdmchk -a agrees,
  # tests/data/lft/ring4.ibdmchk-a.txt): exit 1, the cycle named
  rc=0; "$FT" check -f "$LFT/ring4.net" -l "$LFT/ring4.opensm-lfts.dump" --switch-pairs > ring.txt || rc=$?
  [ $rc -eq 1 ] || fail "check of the ring's credit loop exited $rc"$'\n'"$(cat ring.txt)"
  has ring.txt "RESULT: FAIL (deadlock)"
  has ring.txt "cycle (4 channels)"
  rc=0; "$FT" check -q -f "$LFT/ft4x2.net" -l wrong-ca.dump > quiet.txt || rc=$?
  [ $rc -eq 1 ] && [ ! -s quiet.txt ] || fail "check -q: exit $rc, output $(cat quiet.txt)"
  expect_error 1 - -- check -f "$LFT/ft4x2.net" -l missing.dump
  expect_error 2 - -- check -f "$LFT/ft4x2.net"
  ;;
opensm-file-engine)
  # tests/data/lft/opensm_file_engine.sh: real OpenSM loads OpenSM's own ft4x2 tables through its
  # file routing engine (-R file -U) under ibsim; the tables read back from the simulated
  # switches (dump_fts), exported as opensm-lfts, are byte-identical to the file loaded.
  PATH=$PATH:/usr/sbin
  for t in ibsim opensm dump_fts; do
    command -v $t > /dev/null || { echo "SKIP: $t not installed"; exit 77; }
  done
  [ -e /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so ] || { echo "SKIP: libumad2sim.so not installed"; exit 77; }
  bash "$LFT/opensm_file_engine.sh" "$LFT/ft4x2.net" "$LFT/ft4x2.opensm-lfts.dump" fts.txt | tee osm.txt
  [ -s fts.txt ] || fail "dump_fts read nothing back"
  [ "$(grep -c '^Unicast lids' fts.txt)" -eq 6 ] || fail "dump_fts: not 6 switches"$'\n'"$(cat fts.txt)"
  "$FT" export -f "$LFT/ft4x2.net" -l fts.txt --to opensm-lfts -o back.dump
  cmp back.dump "$LFT/ft4x2.opensm-lfts.dump" || fail "the file engine did not program the tables it was given"
  ;;
*) echo "commands_test.sh: unknown command '$CMD'" >&2; exit 2 ;;
esac
echo "PASS: ftroute $CMD"
