#!/usr/bin/env bash
# Every `--json` output parses (python3 json) and carries the documented keys (docs/JSON.md) with
# values that agree with the text output; --json where no JSON exists, or --json=VALUE: exit 2
# and exactly one line.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$1; NETS=$2; D=$3
rm -rf "$D"; mkdir -p "$D"; cd "$D"
fail() { echo "FAIL: $*"; exit 1; }
NET=$NETS/4ary3tree.net
# jcheck FILE PYTHON-EXPR... : the file parses and every expression over `j` is true
jcheck() {
  local f=$1; shift
  python3 - "$f" "$@" <<'PY' || fail "$f"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["ftroute_version"] and j["command"], j
for e in sys.argv[2:]:
    assert eval(e), (sys.argv[1], e)
print("ok:", sys.argv[1], j["command"])
PY
}
"$FT" route -e ftree-misroute "$NET" -o lfts.dump --json > route.json
jcheck route.json 'j["command"]=="route"' 'j["engine"]=="ftree-misroute"' 'j["switches"]==48' 'j["vls"]==1' \
  'j["outputs"]["lfts"]=="lfts.dump"' 'j["fabric"]["cas"]==64'
"$FT" check -f "$NET" -l lfts.dump --json > check.json
jcheck check.json 'j["result"]=="PASS"' 'j["pairs"]["unreachable"]==0' 'j["deadlock"]["cdg_acyclic"]' \
  'j["deadlock"]["vls_used"]==[0]' 'j["efi"]["max"]>0' 'j["failed_checks"]==[]'
# a failing check: its JSON says FAIL and the exit status is still 1
"$FT" route -q -e ft-dor "$NETS/torus4x4.net" -o dor.lfts --sl-out dor.sl --sl2vl-out dor.sl2vl
rc=0; "$FT" check -f "$NETS/torus4x4.net" -l dor.lfts --json > check_fail.json || rc=$?
[ $rc -eq 1 ] || fail "failing check --json exit $rc"
jcheck check_fail.json 'j["result"]=="FAIL"' '"deadlock" in j["failed_checks"]' 'not j["deadlock"]["cdg_acyclic"]' \
  'j["deadlock"]["cycle"]!=""'
"$FT" compare "$NET" --engines ftree-misroute,ft-minhop,kns --lfts mine=lfts.dump --json > compare.json
jcheck compare.json '[r["name"] for r in j["rows"]]==["ftree-misroute","ft-minhop","mine"]' \
  'j["rows"][2]["source"]=="file"' 'all(r["result"]=="PASS" for r in j["rows"])' \
  '[r["engine"] for r in j["refused"]]==["kns"]' 'j["failed"]==[]' \
  'j["recommendation"]["best"]==j["recommendation"]["chain"][0]' \
  'set(j["recommendation"]["chain"])<={"ftree-misroute","ft-minhop"}' \
  '[r["name"] for r in j["recommendation"]["rejected"]]==["kns"]' \
  'j["recommendation"]["rejected"][0]["reasons"][0].startswith("refused: ")' \
  'j["recommendation"]["opensm_conf"][0]=="routing_engine "+",".join(j["recommendation"]["chain"])' \
  'j["recommendation"]["opensm_checked"] is False'
"$FT" engines --json > engines.json
jcheck engines.json '"ftree-misroute" in [e["name"] for e in j["engines"]]' 'all("options" in e for e in j["engines"])' \
  '{o["key"]: o["default"] for e in j["engines"] if e["name"]=="ftree-misroute" for o in e["options"]}["max_valleys"]=="8"'
"$FT" sim --fabric "$NET" --engine ftree-misroute --load 0.1 --warmup 100 --measure 500 --json > sim.json
jcheck sim.json 'len(j["points"])==1' 'j["points"][0]["load"]==0.1' 'j["points"][0]["packets"]["delivered"]>0' \
  'not j["points"][0]["deadlock"]["detected"]'
"$FT" sim --fabric "$NET" --engine ftree-misroute --sweep 0.1:0.3:0.1 --warmup 100 --measure 300 --json > sweep.json 2> /dev/null
jcheck sweep.json 'len(j["points"])==3' 'abs(j["points"][2]["load"]-0.3)<1e-9'
"$FT" campaign --gen fattree:4,2 --engines ftree-misroute,ft-minhop --link-failures 0,1 --seeds 2 -j 1 -q --out camp > /dev/null
"$FT" campaign-table camp --json > table.json
jcheck table.json 'len(j["rows"])==4' 'all(r["runs"]==2 for r in j["rows"])' \
  'all(r["tolerated"]==2 for r in j["rows"] if r["engine"]=="ftree-misroute")' 'j["rows"][0]["fallback"] is None'
# the markdown table and the JSON rows agree on the tolerated counts
"$FT" campaign-table camp > table.md
python3 - table.json table.md <<'PY' || fail "campaign-table JSON vs markdown"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
md = [l.split("|") for l in open(sys.argv[2]) if l.startswith("| fattree")]
assert len(md) == len(rows)
for r, m in zip(rows, md):
    assert m[3].strip() == r["engine"] and m[4].strip().startswith(f'{r["tolerated"]}/{r["runs"]}'), (r, m)
print("ok: campaign-table JSON rows match the markdown")
PY
# refusals: one line + "see 'ftroute CMD --help'", exit 2
for args in "gen fattree --k 2 --n 2 -o x.net --json" "check -f $NET -l lfts.dump --json=out.json" "export --json"; do
  rc=0; "$FT" $args > out.txt 2> err.txt || rc=$?
  [ $rc -eq 2 ] || fail "'$args': exit $rc"
  [ "$(wc -l < err.txt)" -eq 2 ] && [ ! -s out.txt ] || { cat err.txt; fail "'$args': not one line + the see line"; }
  [ "$(sed -n 2p err.txt)" = "see 'ftroute ${args%% *} --help'" ] || { cat err.txt; fail "'$args': no see-help line"; }
  grep -q -- '--json' err.txt || fail "'$args': message does not name --json"
  echo "ok: refused: $(head -1 err.txt)"
done
[ ! -e x.net ] || fail "gen --json wrote its output"
echo "PASS: every --json output parses"
