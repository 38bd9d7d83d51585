#!/usr/bin/env bash
# results.csv is RFC 4180 (issue 33 item 6): a message with quotes, commas and line breaks is
# written in quotes with its quotes doubled, and every reader of the project reads it back
# unchanged - campaign-merge (which writes it again), campaign-table, and a resume of the campaign
# (which must not take the line breaks inside the message for rows). Python's csv module, the
# reader of the other scripts, agrees byte for byte.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$1; D=$2
rm -rf "$D"; mkdir -p "$D"; cd "$D"
fail() { echo "FAIL: $*"; exit 1; }
run() { "$FT" campaign --gen fattree:4,2 --engines ft-minhop --link-failures 0 --seeds 2 -j 1 -q "$@"; }

run --out camp
# a part whose rows were refused with a hostile message (written by Python's RFC 4180 writer)
python3 - <<'PY'
import csv, os
rows = list(csv.DictReader(open("camp/results.csv", newline="")))
os.makedirs("ref", exist_ok=True)
msg = 'switch "lf07.rack3" (S-ec0d9a0300537d00), port 3:\nfirst, "second"\r\nthird\tend ""'
with open("ref/results.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(dict(r, engine="ftdrb", status="refused", engine_used="none", message=msg))
open("msg.txt", "w", newline="").write(msg)
PY
grep -q '"switch ""lf07.rack3"" (S-ec0d9a0300537d00), port 3:$' ref/results.csv || fail "the fixture is not quoted as expected"

"$FT" campaign-merge camp ref --out merged > merge.out 2>&1 || { cat merge.out; fail "campaign-merge"; }
python3 - <<'PY' || fail "merged/results.csv: message changed"
import csv
msg = open("msg.txt", newline="").read()
rows = list(csv.DictReader(open("merged/results.csv", newline="")))
assert len(rows) == 4, len(rows)
got = [r["message"] for r in rows if r["engine"] == "ftdrb"]
assert got == [msg, msg], got
PY
# ftroute writes the quotes doubled, the line breaks inside the quotes
grep -q ',"switch ""lf07.rack3"" (S-ec0d9a0300537d00), port 3:$' merged/results.csv || fail "merged: quoting"
"$FT" campaign-table merged > table.md 2> table.err || { cat table.err; fail "campaign-table"; }
grep -q 'ftdrb' table.md || fail "campaign-table lost the refused engine: $(cat table.md)"

# resume: the campaign re-reads its results.csv (4 rows, one message spread over 3 lines) and
# finds nothing to do
"$FT" campaign --gen fattree:4,2 --engines ft-minhop,ftdrb --link-failures 0 --seeds 2 -j 1 --out merged \
  > resume.out 2>&1 || { cat resume.out; fail "resume"; }
grep -q '^4 rows in merged/results.csv' resume.out || fail "resume: $(cat resume.out)"
python3 - <<'PY' || fail "resume changed the message"
import csv
msg = open("msg.txt", newline="").read()
rows = list(csv.DictReader(open("merged/results.csv", newline="")))
assert len(rows) == 4 and sum(r["message"] == msg for r in rows) == 2, rows
PY
echo "PASS: quotes, commas and line breaks survive campaign-merge, campaign-table and a resume"
