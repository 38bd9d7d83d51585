#!/usr/bin/env bash
# Node names in the command's texts (issue 33 item 3): on an ibnetdiscover fabric (ids
# S-<GUID>/H-<GUID>, NodeDescriptions after '#') `check`, `compare`, `route` and the engines name
# a node by its description with the GUID id in brackets ("lf07.rack3.qm8790" (S-...)), as the
# plugin log does; a hostile description (quotes, backslash, <script>, VT/FF/CR) comes out
# escaped inside its quotes, never raw. And `route --sl-out` says on stderr that OpenSM cannot
# load path SLs from a file (issue 33 item 7).
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$1; SRC=$2; D=$3
rm -rf "$D"; mkdir -p "$D"; cd "$D"
fail() { echo "FAIL: $*"; exit 1; }
raw_controls() { LC_ALL=C grep -c $'[\x01-\x08\x0b-\x1f\x7f]' "$1" || true; }

python3 - "$SRC/tests/data/net/ibnetdiscover_2sw2path4hca.net" <<'PY'
import sys
src = open(sys.argv[1]).read()
src = src.replace('# "Switch1" base port 0', '# "lf07.rack3.qm8790" base port 0')
# unquoted description form: quotes, a backslash, markup and VT, FF, CR up to " base port "
src = src.replace('# "Switch2" base port 0', '# evil"sw\\<script>alert(1)</script>\x0b\x0c\r base port 0')
src = src.replace('# "Hca2"\n', '# "node02 HCA-1"\n')
open('names.net', 'w').write(src)
open('nolid.net', 'w').write(src.replace('"lf07.rack3.qm8790" base port 0 lid 1 lmc 0', '"lf07.rack3.qm8790" base port 0'))
PY
LF07='"lf07.rack3.qm8790" (S-0000000000200000)'
EVIL='"evil\"sw\\<script>alert(1)</script>\x0b\x0c\x0d" (S-0000000000200001)'

# check: a switch lost its route to node02: the example names hosts and the switch
"$FT" route -e ft-minhop names.net -o lfts.dump -q
[ "$(raw_controls lfts.dump)" = 0 ] || fail "raw control characters in the LFT file's comments"
awk '/^Unicast lids .* guid 0x0000000000200001/ {t = 1} t && /^0x0004 / {t = 0; next} {print}' lfts.dump > bad.dump
cmp -s lfts.dump bad.dump && fail "the LFT entry to damage was not found"
rc=0; "$FT" check names.net --lfts bad.dump > check.txt 2>&1 || rc=$?
cat check.txt
[ "$rc" = 1 ] || fail "check of a damaged table: exit $rc"
grep -qF "e.g. \"Hca1\" (H-0000000000100000)(2) -> \"node02 HCA-1\" (H-0000000000100003)(4) stops at $EVIL: no route" check.txt ||
  fail "check: unreachable example does not name descriptions and GUIDs"
grep -qF "(at $LF07" check.txt || grep -qF "(at ${EVIL%% (*}[" check.txt || fail "check: EFI link not named by description"
[ "$(raw_controls check.txt)" = 0 ] || fail "check printed raw control characters"
"$FT" check names.net --lfts bad.dump --json > check.json || true
python3 -c 'import json,sys; d=json.load(open("check.json")); s=json.dumps(d); assert "S-0000000000200001" in s and "evil" in s, s' ||
  fail "check --json lost the names"

# engines refusing the fabric (compare's refusal lines, route's error): description + GUID id
"$FT" compare names.net --engines ftree-misroute,kns > compare.txt 2>&1 || true
grep -qF "refused ftree-misroute: link \"lf07.rack3.qm8790\"[3] (S-0000000000200000) - \"evil" compare.txt ||
  fail "compare: ftree-misroute's refusal: $(cat compare.txt)"
grep -qF "refused kns: router \"evil\\\"sw" compare.txt || fail "compare: kns's refusal: $(cat compare.txt)"
[ "$(raw_controls compare.txt)" = 0 ] || fail "compare printed raw control characters"
rc=0; "$FT" route -e kns names.net -o kns.dump 2> route.err || rc=$?
[ "$rc" = 1 ] && grep -qF "ftroute route: kns: router $(printf '%s' "${EVIL%% (*}")[3] (S-0000000000200001)" route.err ||
  fail "route -e kns: exit $rc, $(cat route.err)"
[ ! -e kns.dump ] || fail "refused route left an output file"

# a file with LIDs on some ports only names the switch without one
rc=0; "$FT" route -e ft-minhop nolid.net -o x.dump 2> nolid.err || rc=$?
[ "$rc" = 1 ] && grep -qF "switch $LF07 has no LID while others do" nolid.err || fail "route, missing LID: exit $rc, $(cat nolid.err)"

# a description that is not UTF-8 (0xff), with a C1 control (U+009B, a terminal's CSI) and a
# right-to-left override (U+202E): \xNN per byte in every text and in --json (valid JSON, which
# must be UTF-8), never raw
python3 - <<'PY'
src = open('names.net', 'rb').read()
open('names8.net', 'wb').write(src.replace(b'"lf07.rack3.qm8790"', b'"lf07 \xff\xc2\x9b\xe2\x80\xae"'))
PY
raw8() { LC_ALL=C grep -c $'\xff\|\xc2\x9b\|\xe2\x80\xae' "$1" || true; }
"$FT" route -e ft-minhop names8.net -o lfts8.dump --json > route8.json || fail "route --json with a non-UTF-8 name"
"$FT" check names8.net --lfts lfts8.dump --efi-links > check8.txt || fail "check with a non-UTF-8 name"
"$FT" check names8.net --lfts lfts8.dump --efi-links --json > check8.json || fail "check --json with a non-UTF-8 name"
"$FT" compare names8.net --engines ft-minhop,ftree-misroute --json > compare8.json || fail "compare --json with a non-UTF-8 name"
for f in route8.json check8.json compare8.json; do
  python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$f" || fail "$f: not UTF-8 JSON"
done
grep -qF '\"lf07 \\xff\\xc2\\x9b\\xe2\\x80\\xae\"' check8.json || fail "check --json: the name is not escaped per byte"
grep -qF '"lf07 \xff\xc2\x9b\xe2\x80\xae"[' check8.txt || fail "check: the name is not escaped per byte"
for f in lfts8.dump check8.txt route8.json check8.json compare8.json; do
  [ "$(raw8 "$f")" = 0 ] || fail "$f: raw bytes of the non-UTF-8 name"
done

# route --sl-out: one line on stderr saying that path SLs need the plugin (lft-file), not otherwise
"$FT" route -e ftdrb names.net -o l.dump --sl-out sl.txt --sl2vl-out sl2vl.txt 2> sl.err
cat sl.err
[ "$(grep -c 'path SLs need the ftroute plugin' sl.err)" = 1 ] || fail "route --sl-out: no note about the plugin"
grep -q "OpenSM's file engine loads only LFTs" sl.err && grep -q 'routing_engine lft-file' sl.err || fail "route --sl-out: note text"
"$FT" route -e ftdrb names.net -o l.dump 2> nosl.err
! grep -q 'path SLs' nosl.err || fail "note printed without --sl-out"
"$FT" route -e ftdrb names.net -o l.dump --sl-out sl.txt -q 2> quiet.err
[ ! -s quiet.err ] || fail "-q printed: $(cat quiet.err)"
echo "PASS: descriptions with GUID ids in check/compare/route texts, hostile names escaped (also not UTF-8, in JSON), --sl-out note"
