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
# fabric FILE names are untrusted too: one with markup, a byte that is no UTF-8, a right-to-left
# override, ESC and '|', and two names that file_safe() makes alike ('a b.net', 'a_b.net'). Every
# plot is well-formed XML, the summary and the table hold no raw control byte, the '|' does not
# split a Markdown row, and both fabrics keep their plots.
"$FT" gen fattree:4,2 -o base.net > /dev/null
hostile=$'h"<img src=x>\xff\xe2\x80\xae\x1b[31m|x.net'
cp base.net "$hostile"; cp base.net 'a b.net'; cp base.net a_b.net
"$FT" campaign --fabric "$hostile" --fabric 'a b.net' --fabric a_b.net --engines ft-minhop --link-failures 0,1 \
  --seeds 1 -j 1 -q --pattern uniform --sim-cycles 300 --out names > names.out 2>&1 || { cat names.out; fail "campaign on hostile file names"; }
python3 - <<'PY' || fail "plots of hostile or alike fabric names"
import glob, os, xml.etree.ElementTree as ET
plots = sorted(glob.glob("names/plots/*.svg"))
for p in plots:
    ET.parse(p)  # well-formed (raises on a raw 0xff, ESC or '<')
stems = {os.path.basename(p).split("_throughput")[0] for p in plots if "_throughput" in p}
assert {"a_b.net", "a_b.net-2"} <= stems, stems
PY
for f in names/summary.txt names/results.csv; do
  ! LC_ALL=C grep -q $'[\x1b\xff]' "$f" || fail "$f: raw ESC or 0xff"
done
"$FT" campaign-table names > names.md
! LC_ALL=C grep -q $'[\x1b\xff]' names.md || fail "campaign-table: raw ESC or 0xff"
grep -F 'h"<img src=x>\xff\xe2\x80\xae\x1b[31m\x7cx.net' names.md > /dev/null || fail "campaign-table: the name is not escaped: $(cat names.md)"
echo "PASS: quotes, commas and line breaks survive campaign-merge, campaign-table and a resume; hostile and alike fabric file names"
