#!/usr/bin/env bash
# Campaign plots people read (docs/campaign.md "Plots"): every SVG of a campaign (and of a
# campaign-merge that adds an opensm: engine whose OpenSM fell back in some runs) renders with
# rsvg-convert (librsvg2-bin) without error; the y axis has a label with its unit; a percentage
# ends at 100 (not 125); each engine has its own marker; fallback points are ringed and labelled;
# an engine that refused the fabric is marked as refused (hatched square, "refused R/N", legend),
# not shown as a failed routing.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$1; D=$2
command -v rsvg-convert > /dev/null || { echo "SKIP: rsvg-convert (Debian package librsvg2-bin) not installed"; exit 77; }
rm -rf "$D"; mkdir -p "$D"; cd "$D"
fail() { echo "FAIL: $*"; exit 1; }
# the renderer must be able to fail: a truncated SVG is an error
printf '<svg xmlns="http://www.w3.org/2000/svg"><rect' > broken.svg
if rsvg-convert broken.svg -o broken.png 2> /dev/null; then fail "rsvg-convert accepted a broken SVG"; fi

"$FT" campaign --gen fattree:4,2 --engines ftree-misroute,ft-minhop --link-failures 0,1,2 --seeds 2 -j 1 -q --out camp > /dev/null
# an opensm: engine that fell back in some runs (rows derived from ft-minhop's, as OpenSM's
# minhop would give them): seed 1 fell back everywhere, seed 2 only at 2 failed links
python3 - <<'PY'
import csv, os
rows = list(csv.DictReader(open("camp/results.csv")))
os.makedirs("fb", exist_ok=True)
w = csv.DictWriter(open("fb/results.csv", "w", newline=""), fieldnames=list(rows[0].keys()))
w.writeheader()
for r in rows:
    if r["engine"] != "ft-minhop":
        continue
    r = dict(r, engine="opensm:ft-dor")
    fb = r["seed"] == "1" or r["link_failures"] == "2"
    r["fallback"], r["engine_used"] = ("1", "minhop") if fb else ("0", "ft-dor")
    w.writerow(r)
# an engine that refused the fabric in every run (as ftdrb or kns do on fabrics they cannot serve)
os.makedirs("ref", exist_ok=True)
rf = csv.DictWriter(open("ref/results.csv", "w", newline=""), fieldnames=list(rows[0].keys()))
rf.writeheader()
for r in rows:
    if r["engine"] == "ft-minhop":
        rf.writerow(dict(r, engine="kns", status="refused", engine_used="none", message='not a KNS: "S0_0" has hosts'))
PY
"$FT" campaign-merge camp fb ref --out merged > /dev/null
n=0
for f in camp/plots/*.svg merged/plots/*.svg; do
  rsvg-convert "$f" -o "${f%.svg}.png" 2> render.err || { cat render.err; fail "$f does not render"; }
  [ -s "${f%.svg}.png" ] || fail "$f rendered empty"
  grep -q 'transform="rotate(-90' "$f" || fail "$f: no y-axis label"
  n=$((n + 1))
done
V=merged/plots/fattree_4_2_valid.svg
grep -q '>valid runs (%)</text>' "$V" || fail "valid: y label without unit"
grep -q 'text-anchor="end">100</text>' "$V" || fail "valid: no 100 tick"
! grep -Eq 'text-anchor="end">1[0-9][0-9]+</text>' <(grep -v '>100<' "$V") || fail "valid: a tick above 100 %"
grep -q '>routing time (s)</text>' merged/plots/fattree_4_2_route_seconds.svg || fail "route_seconds: y label"
# four engines, their marker shapes (circle, square, triangle, diamond)
grep -q '<circle cx=' "$V" && grep -q '<rect x=' "$V" && grep -q 'Z" fill=' "$V" || fail "valid: marker shapes missing"
# refused marks: kns at each of the 3 failure levels (2/2 each), the legend counts 6/6; no other
# engine is marked, and the campaign without kns has none
[ "$(grep -o '<rect class="refused"' "$V" | wc -l)" -eq 3 ] || fail "valid: expected 3 refused marks"
[ "$(grep -o '>refused 2/2</text>' "$V" | wc -l)" -eq 3 ] || fail "valid: refused labels"
grep -q '>kns (refused 6/6)</text>' "$V" || fail "valid: legend does not say kns refused"
! grep -q 'ft-minhop (refused\|ftree-misroute (refused' "$V" || fail "valid: a refusal mark on an engine that routed"
! grep -q 'refused' camp/plots/fattree_4_2_valid.svg || fail "refused mark without a refusal"
# fallback marks: 3 points of opensm:ft-dor (1/2, 1/2, 2/2), none in the campaign without it
[ "$(grep -o 'class="fallback"' "$V" | wc -l)" -eq 3 ] || fail "valid: expected 3 fallback rings"
grep -q 'fell back 2/2' "$V" && grep -q 'fell back 1/2' "$V" || fail "valid: fallback labels"
! grep -q 'class="fallback"' camp/plots/fattree_4_2_valid.svg || fail "fallback ring without a fallback"
echo "PASS: $n SVGs render; labelled axes, 0..100 %, markers, fallback and refused marks"
