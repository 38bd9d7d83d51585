#!/usr/bin/env bash
# `ftroute check --svg FILE` (docs/check.md "The picture"): the SVG is well-formed XML (python3's
# xml.etree parses it) for a tree, a torus and a fabric with hostile NodeDescriptions and node ids
# (no raw <script, no control characters); it marks the hottest link, the missing cable of
# ft648_f1 and a cable without routes; it is written also when a check fails (exit 1); a bad
# --svg path fails before any work (exit 1, the path named, nothing written, no report); usage
# errors exit 2; every SVG renders with rsvg-convert (librsvg2-bin) when that is installed
# (otherwise everything else is checked and the test reports SKIP with the reason).
# usage: check_svg_test.sh FTROUTE SCRATCH_DIR SOURCE_DIR
set -u
F=$1 S=$2 SRC=$3
N=$SRC/ibsim_topologies/nets
rm -rf "$S" && mkdir -p "$S" && cd "$S" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# well_formed SVG: parses as XML, root <svg>, no <script element, no raw control characters
well_formed() {
  python3 - "$1" <<'PY' || return 1
import sys, xml.etree.ElementTree as ET
data = open(sys.argv[1], "rb").read()
root = ET.fromstring(data)
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
assert not any(el.tag.endswith("script") for el in root.iter()), "script element"
assert b"<script" not in data, "raw <script"
assert not any(b < 0x20 and b not in (9, 10) for b in data), "control character"
PY
}

# a 4-ary 3-tree routed by ftree-misroute
"$F" route -q -e ftree-misroute --gen fattree:4,3 -o ft43.lfts || bad "route fattree:4,3"
"$F" gen fattree:4,3 -o ft43.net > /dev/null || bad "gen fattree:4,3"
"$F" check -f ft43.net -l ft43.lfts --svg ft43.svg --engine ftree-misroute > out.txt; rc=$?
[ $rc = 0 ] || bad "check --svg on fattree:4,3: exit $rc"
grep -q 'RESULT: PASS' out.txt || bad "check --svg: no report on stdout"
well_formed ft43.svg || bad "ft43.svg is not well-formed"
grep -q '<g class="hottest">' ft43.svg || bad "ft43.svg: no hottest link"
grep -q '4-ary 3-tree' ft43.svg || bad "ft43.svg: the caption does not name the tree"
grep -q 'engine ftree-misroute' ft43.svg || bad "ft43.svg: the caption does not name the engine"
[ "$(grep -c '<g class="pod">' ft43.svg)" = 4 ] || bad "ft43.svg: expected 4 pods"
[ "$(grep -c '<path class="cable' ft43.svg)" = 128 ] || bad "ft43.svg: expected 128 switch cables"
echo "ok: fattree:4,3"

# ft648 with its failed link: the LFTs of the damaged tree drawn on it (the cable is missing) and
# on the intact tree (the cable is there but carries no route)
"$F" route -q -e ftree-misroute "$N/ft648_f1.net" -o f1.lfts || bad "route ft648_f1"
"$F" check -q -f "$N/ft648_f1.net" -l f1.lfts --svg f1.svg || bad "check --svg ft648_f1"
well_formed f1.svg || bad "f1.svg is not well-formed"
grep -q '<path class="missing" data-a="L0" data-b="S0"' f1.svg || bad "f1.svg: the missing cable L0 - S0 is not drawn"
[ "$(grep -c 'class="missing-mark"' f1.svg)" = 1 ] || bad "f1.svg: expected one missing-cable mark"
! grep -q 'class="cable unused"' f1.svg || bad "f1.svg: a cable without routes"
"$F" check -q -f "$N/ft648.net" -l f1.lfts --svg f1u.svg || bad "check --svg ft648 with the LFTs of ft648_f1"
well_formed f1u.svg || bad "f1u.svg is not well-formed"
grep -q 'class="cable unused" data-efi="0" data-a="&quot;L0&quot;\[19\]" data-b="&quot;S0&quot;\[1\]"' f1u.svg ||
  bad "f1u.svg: L0[19] - S0[1] is not marked as a cable without routes"
! grep -q '<path class="missing"' f1u.svg || bad "f1u.svg: a missing cable on the intact tree"
echo "ok: ft648_f1 missing / unused cable"

# not a tree (BFS levels), and a failing check: the SVG is still written, exit 1
"$F" route -q -e ft-minhop "$N/torus4x4.net" -o t.lfts || bad "route torus4x4"
"$F" check -q -f "$N/torus4x4.net" -l t.lfts --svg t.svg; rc=$?
[ $rc = 1 ] || bad "check of ft-minhop on a torus: exit $rc, expected 1 (CDG cycle)"
well_formed t.svg || bad "t.svg is not well-formed"
grep -q 'levels are BFS distances' t.svg || bad "t.svg: the caption does not say the levels are BFS levels"
grep -q 'check FAIL' t.svg || bad "t.svg: the caption does not say the check failed"
echo "ok: torus (BFS levels, failing check)"

# hostile names: a node id and an ibnetdiscover-style NodeDescription with markup, quotes, '&',
# tab/VT/FF, bytes that are no UTF-8 and an XML comment opener
"$F" gen fattree:2,3 -o h0.net > /dev/null || bad "gen fattree:2,3"
python3 - <<'PY'
s = open("h0.net", encoding="latin-1").read()
s = s.replace('"S1_00"', '"<script>alert(1)</script>&amp\'\t\x0b\x0c"')
out = []
for l in s.split("\n"):
    if l.startswith("Switch") and '"S2_00"' in l:
        l += '\t# MF0;<script>evil("x")</script> & \'q\' \x0b\xff\xfe\xc3\x28 ]]> <!-- enhanced port 0 lid 0 lmc 0'
    out.append(l)
open("h.net", "w", encoding="latin-1").write("\n".join(out))
PY
"$F" route -q -e ftree-misroute h.net -o h.lfts || bad "route the fabric with hostile names"
"$F" check -q -f h.net -l h.lfts --svg 'h<&>.svg' --engine '<b>"x"</b>' || bad "check --svg with hostile names"
well_formed 'h<&>.svg' || bad "the SVG of hostile names is not well-formed"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp&apos;\\x09\\x0b\\x0c' 'h<&>.svg' || bad "hostile node id not escaped as expected"
grep -q '\\xff\\xfe\\xc3(' 'h<&>.svg' || bad "bytes that are no UTF-8 not escaped as \\xNN"
echo "ok: hostile names"

# no partial output: a bad --svg path fails before any work (no report), nothing is left behind
expect_fail() {  # RC MESSAGE_REGEX CMD...
  local rcre=$1 msgre=$2; shift 2
  rm -rf w && mkdir w
  (cd w && timeout 60 "$@" > ../o.txt 2> ../err); local rc=$?
  [[ $rc =~ ^($rcre)$ ]] || { bad "exit $rc, expected $rcre: $*"; cat err; return; }
  grep -Eq -- "$msgre" err || { bad "message: $*"; cat err; return; }
  [ -z "$(ls -A w)" ] || { bad "left behind: $(ls -A w): $*"; return; }
  ! grep -q 'RESULT' o.txt || { bad "a report although the output path is bad: $*"; return; }
  echo "ok: $*"
}
expect_fail 1 'cannot write /nonexistent/dir/x.svg' "$F" check -f "$S/ft43.net" -l "$S/ft43.lfts" --svg /nonexistent/dir/x.svg
expect_fail 1 "cannot write $S/w: is a directory" "$F" check -f "$S/ft43.net" -l "$S/ft43.lfts" --svg "$S/w"
: > empty.lfts
expect_fail 1 'empty file' "$F" check -f "$S/ft43.net" -l "$S/empty.lfts" --svg x.svg
expect_fail 2 "see 'ftroute check --help'" "$F" check -f "$S/ft43.net" -l "$S/ft43.lfts" --svg -
expect_fail 2 "see 'ftroute check --help'" "$F" check -f "$S/ft43.net" -l "$S/ft43.lfts" --engine x
"$F" check -q -f ft43.net -l ft43.lfts --svg - > stdout.svg || bad "--svg - -q"
well_formed stdout.svg || bad "--svg - wrote no SVG to stdout"

# render every SVG
if command -v rsvg-convert > /dev/null; then
  printf '<svg xmlns="http://www.w3.org/2000/svg"><rect' > broken.svg  # the renderer must be able to fail
  if rsvg-convert broken.svg -o broken.png 2> /dev/null; then bad "rsvg-convert accepted a broken SVG"; fi
  for f in ft43.svg f1.svg f1u.svg t.svg 'h<&>.svg'; do
    rsvg-convert "$f" -o "${f%.svg}.png" 2> render.err || { cat render.err; bad "$f does not render"; continue; }
    [ -s "${f%.svg}.png" ] || bad "$f rendered empty"
  done
  [ $fail = 0 ] && echo "PASS: check --svg (5 SVGs rendered with rsvg-convert)"
  exit $fail
fi
[ $fail = 0 ] || exit 1
echo "SKIP: the rest passed, but rsvg-convert (Debian package librsvg2-bin) is not installed to render the SVGs"
exit 77
