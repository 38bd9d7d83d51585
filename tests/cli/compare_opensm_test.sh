#!/usr/bin/env bash
# `ftroute compare --opensm` under a real ibsim + OpenSM (ctest integration.compare_opensm,
# docs/compare.md):
#   compare_opensm_test.sh FTROUTE NETS WORKDIR
# 1. a 4-ary 2-tree with one failed link and a '"' in a switch's description, ftroute's
#    ftree-misroute and ft-minhop against OpenSM's updn and minhop: the OpenSM rows are in the table with their verdicts, and the recommendation
#    names an engine that passed; its routing_engine chain holds only engines that passed.
# 2. the 4x4 torus (ibsim_topologies/nets/torus4x4.net) with OpenSM's updn, minhop and ftree:
#    minhop has a credit loop (CYCLE, rejected as a credit loop), ftree and updn fall back to
#    minhop (rows marked, rejected), and the JSON carries the OpenSM rows and the recommendation.
# Exit 77 (skipped) with the reason when ibsim/OpenSM are not installed.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$(readlink -f "$1"); NETS=$(readlink -f "$2"); W=$3
rm -rf "$W"; mkdir -p "$W"; cd "$W"
fail() { echo "FAIL: $*"; exit 1; }

# ftroute checks the simulator before it reads the fabric: its own reason is the skip reason.
rc=0
"$FT" compare missing.net --opensm minhop -q > probe.out 2> probe.err || rc=$?
if grep -q -- '--opensm needs ibsim and OpenSM' probe.err; then
  echo "SKIP: $(cat probe.err)"
  exit 77
fi
[ "$rc" -eq 1 ] || fail "probe: exit $rc: $(cat probe.err)"

# chain_ok OUT: the best engine comes first in the routing_engine line, and every engine of it has
# a table row that PASSed every check with the engine itself (no OpenSM fallback) and is not
# listed as not usable.
chain_ok() {
  local out=$1 chain best e
  chain=$(sed -n 's/^routing_engine //p' "$out")
  best=$(sed -n 's/^Recommendation: //p' "$out")
  [ -n "$chain" ] || fail "$out: no routing_engine line:"$'\n'"$(cat "$out")"
  [ "${chain%%,*}" = "$best" ] || fail "$out: chain '$chain' does not start with the best engine '$best'"
  for e in ${chain//,/ }; do
    grep -E "^(opensm:)?$e +PASS +0 +0 acyclic " "$out" > row.txt || fail "$out: chain engine $e did not pass"
    ! grep -q 'fell back' row.txt || fail "$out: chain engine $e is an OpenSM fallback: $(cat row.txt)"
    ! grep -Eq "^  not usable: (opensm:)?$e:" "$out" || fail "$out: chain engine $e is listed as not usable"
  done
  echo "ok: $out: best $best, routing_engine $chain (engines that passed only)"
}

# ---- 1. 4-ary 2-tree, one failed link ----
"$FT" gen fattree:4,2 --fail-links 1 --seed 3 --keep-connected -o ft0.net > /dev/null
# a NodeDescription with '"' (any host or switch may set one): ibsim's .net header line would end
# at it, so the OpenSM runs get it as export --to ibsim writes it; the table names it escaped
sed '0,/^Switch\t8 "S0_0"$/s//Switch\t8 "S0_0"\t# leaf"one<b> base port 0/' ft0.net > ft.net
! cmp -s ft0.net ft.net || fail "no description set"
"$FT" compare ft.net --engines ftree-misroute,ft-minhop --opensm updn,minhop --opensm-timeout 60 \
  -o ft.txt 2> ft.err || fail "compare on the tree: $(cat ft.err)"
cat ft.txt
grep -Eq '^opensm:updn +PASS +0 +0 acyclic +1 .*\(OpenSM\)$' ft.txt || fail "updn row:"$'\n'"$(cat ft.txt)"
grep -Eq '^opensm:minhop +(PASS|FAIL) +0 +0 (acyclic|CYCLE) .*\(OpenSM\)$' ft.txt || fail "minhop row"
grep -Eq '^ftree-misroute +PASS ' ft.txt || fail "ftree-misroute row"
[ "$(grep -c 'compare: OpenSM engine' ft.err)" -eq 2 ] || fail "progress lines: $(cat ft.err)"
chain_ok ft.txt
grep -qx 'event_plugin_name ftroute' ft.txt || fail "an ftroute engine passed but no event_plugin_name line"

# ---- 2. 4x4 torus: minhop has a credit loop, ftree falls back ----
"$FT" compare "$NETS/torus4x4.net" --engines ft-dor,ft-minhop --opensm updn,minhop,ftree --opensm-timeout 60 \
  -q -o torus.txt || fail "compare on the torus"
cat torus.txt
grep -Eq '^opensm:minhop +FAIL +0 +0 CYCLE ' torus.txt || fail "minhop on the torus not flagged CYCLE"
grep -Eq '^  not usable: opensm:minhop: credit loop \(CDG cycle\): "' torus.txt || fail "minhop not rejected as a credit loop"
grep -Eq '^opensm:ftree .*\(OpenSM fell back: ftree -> minhop\)$' torus.txt || fail "ftree fallback not marked"
grep -Eq '^  not usable: opensm:ftree: OpenSM fell back to minhop' torus.txt || fail "ftree fallback not rejected"
grep -Fq '# when every engine above fails, OpenSM routes with its built-in minhop; minhop fails here: credit loop' \
  torus.txt || fail "no warning about the built-in minhop"
chain_ok torus.txt
"$FT" compare "$NETS/torus4x4.net" --engines ft-dor,ft-minhop --opensm updn,minhop --opensm-timeout 60 \
  -q --json -o torus.json || fail "compare --json on the torus"
python3 - torus.json <<'PY' || fail "torus JSON"
import json, sys
j = json.load(open(sys.argv[1]))
rows = {r["name"]: r for r in j["rows"]}
rec = j["recommendation"]
passed = {p["name"] for p in rec["passed"]}
rejected = {r["name"]: r["reasons"] for r in rec["rejected"]}
assert rows["opensm:minhop"]["source"] == "opensm" and rows["opensm:minhop"]["engine_used"] == "minhop", rows["opensm:minhop"]
assert rows["opensm:minhop"]["result"] == "FAIL" and not rows["opensm:minhop"]["deadlock"]["cdg_acyclic"]
assert rows["opensm:minhop"]["deadlock"]["cycle"] != ""
# updn finds no root switch on a torus (every switch sees the CAs alike): OpenSM falls back to minhop
assert rows["opensm:updn"]["fallback"] is True and rows["opensm:updn"]["engine_used"] == "minhop", rows["opensm:updn"]
assert rows["opensm:updn"]["route_cpu_seconds"] is None and rows["opensm:updn"]["routing_step_seconds"] > 0
assert any(r.startswith("OpenSM fell back to minhop") for r in rejected["opensm:updn"]), rejected
assert rec["best"] is not None and rec["chain"][0] == rec["best"], rec
assert any(r.startswith("credit loop") for r in rejected["opensm:minhop"]), rejected
for e in rec["chain"]:
    assert e in passed or "opensm:" + e in passed, (e, passed)
    assert rows.get(e, rows.get("opensm:" + e))["result"] == "PASS", e
assert rec["opensm_conf"][0] == "routing_engine " + ",".join(rec["chain"]), rec["opensm_conf"]
assert rec["opensm_checked"] is True
print("ok: torus JSON: best", rec["best"], "chain", rec["chain"], "minhop:", rejected["opensm:minhop"][0][:60])
PY
echo "PASS"
