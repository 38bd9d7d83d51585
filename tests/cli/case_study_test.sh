#!/usr/bin/env bash
# `ftroute campaign --case-study` end to end (docs/campaign.md, "Case study: a production cluster
# over 8 years"): a tiny replica of the HDR 3-tier preset (pods, storage pod, hosts on spines,
# aggregation nodes, a missing cable), 2 years, 1 seed, the ftroute tree engines plus OpenSM's
# dfsssp under ibsim (left out, with a note, when ibsim/opensm are not installed).
# Checks: one run per engine and year; the failures grow year by year and are the same for every
# engine; the report printed is DIR/case_study.md and `campaign-table --lifetime` prints the same
# tables; the recommended engine is valid in every run and has the best mean throughput of the
# engines valid in every run (recomputed here from results.csv); a second run resumes without new
# runs; --path-sl-limit skips the SA query; the same on an ibnetdiscover dump (--fabric); usage
# mistakes exit 2 and create nothing.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$1; D=$2; DATA=$3
rm -rf "$D"; mkdir -p "$D"; cd "$D"
fail() { echo "FAIL: $*"; exit 1; }

SPEC='ctree:preset=hdr-3tier,pods=2/2,storage=1,storageleaves=1,storagehosts=2,aggs=2,cores=2,hosts=3,agghosts=1/0,missing=1'
ENG=ftree-misroute,dqr,ftdrb
osm=0
if command -v ibsim > /dev/null && { command -v opensm > /dev/null || [ -x /usr/sbin/opensm ]; }; then
  ENG=$ENG,opensm:dfsssp
  osm=1
else
  echo "note: ibsim/opensm not installed: the case study runs without opensm:dfsssp"
fi
NENG=$(tr ',' '\n' <<< "$ENG" | wc -l)
run() { "$FT" campaign --case-study --gen "$SPEC" --years 2 --seeds 1 --link-rate 5% --switch-rate 5% \
          --engines "$ENG" -j 2 -q "$@"; }

run --out cs > report.md
cmp report.md cs/case_study.md || fail "stdout differs from cs/case_study.md"
rows=$(($(wc -l < cs/results.csv) - 1))
[ "$rows" = $((NENG * 3)) ] || fail "expected $((NENG * 3)) runs (engines x years 0..2), got $rows"
grep -x 'link_rate 0.05' cs/campaign.conf > /dev/null || fail "campaign.conf: $(cat cs/campaign.conf)"
grep -x 'switch_rate 0.05' cs/campaign.conf > /dev/null || fail "campaign.conf has no switch_rate 0.05"
for y in 0 1 2; do grep "^| $y | " report.md > /dev/null || fail "no table row for year $y"; done

# results.csv by column name: engine year seed status unreachable looping bad deadlock_checked cdg_acyclic
# fallback links_removed switches_removed simulated sim_accepted
# (the fabric name, a spec with commas, is the first field, quoted: replaced by F first)
cols() {
  sed 's/^"[^"]*",/F,/' cs/results.csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { y = $c["link_failures"]; sub("y", "", y)
      print $c["engine"], y, $c["seed"], $c["status"], $c["unreachable"], $c["looping"], $c["bad_entries"],
            $c["deadlock_checked"], $c["cdg_acyclic"], $c["fallback"], $c["links_removed"], $c["switches_removed"],
            $c["simulated"], $c["sim_accepted"] }'
}
cols > runs.txt
# the same failures for every engine in a year, growing with the years, and some by year 2
faults=$(awk '{ print $2, $11, $12 }' runs.txt | sort -u)
[ "$(wc -l <<< "$faults")" = 3 ] || fail "engines saw different faults: $faults"
awk 'NR > 1 && ($2 < l || $3 < s) { bad = 1 } { l = $2; s = $3 } END { exit bad }' <<< "$faults" ||
  fail "failures shrink over the years (something was repaired): $faults"
[ "$(awk '$1 == 2 { print $2 + $3 }' <<< "$faults")" -gt 0 ] || fail "no failure by year 2: $faults"

# the recommendation: valid in every run, best mean throughput of the engines valid everywhere
rec=$(sed -n 's/^\*\*Recommendation for .*:\*\* run \*\*\([^*]*\)\*\*.*/\1/p' report.md)
[ -n "$rec" ] || fail "no recommended engine: $(grep Recommendation report.md)"
best=$(awk '{ n[$1]++; if ($4 == "ok" && $5 == 0 && $6 == 0 && $7 == 0 && $8 == 1 && $9 == 1 && $10 == 0 && $13 == 1) { v[$1]++; t[$1] += $14 } }
  END { for (e in n) if (v[e] == n[e] && (best == "" || t[e] / n[e] > bt)) { best = e; bt = t[e] / n[e] }; print best }' runs.txt)
[ "$rec" = "$best" ] || fail "recommended $rec, but the valid engine with the best throughput is $best"
echo "recommended: $rec"

# OpenSM's dfsssp: its VL demand from the log is in the message of every run (why it would fall back)
if [ "$osm" = 1 ]; then
  n=$(grep ',opensm:dfsssp,' cs/results.csv | grep -c 'dfsssp: [0-9]* VLs needed, 8 available' || true)
  [ "$n" = 3 ] || fail "dfsssp runs without their VL demand: $(grep opensm:dfsssp cs/results.csv)"
fi

# campaign-table --lifetime: the same tables from the directory
"$FT" campaign-table --lifetime cs > table.md
diff <(tail -n +5 cs/case_study.md) <(tail -n +3 table.md) || fail "campaign-table --lifetime differs from case_study.md"

# resume: nothing new to run, the same report
before=$(sha256sum < cs/results.csv)
run --out cs > report2.md
[ "$(sha256sum < cs/results.csv)" = "$before" ] || fail "a resume changed results.csv"
cmp report.md report2.md || fail "a resume changed the report"

# --path-sl-limit: above it OpenSM's SA is not asked for dfsssp's path SLs; its CDG is then not
# checked, so the runs are not valid and (lifetime) not simulated, and the report says why
if [ "$osm" = 1 ]; then
  "$FT" campaign --years 1 --gen "$SPEC" --seeds 1 --engines opensm:dfsssp --path-sl-limit 10 --pattern shift-exchange \
    -j 2 -q --out lim > /dev/null 2>&1
  n=$(grep -c 'exceed the limit of 10 (--path-sl-limit); CDG not checked' lim/results.csv || true)
  [ "$n" = 2 ] || fail "--path-sl-limit 10: expected 2 runs without the SA query: $(cat lim/results.csv)"
  sed 's/^"[^"]*",/F,/' lim/results.csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["deadlock_checked"] != 0 || $c["simulated"] != 0 { bad = 1 } END { exit bad }' ||
    fail "runs over the path SL limit were checked or simulated"
  grep '| opensm:dfsssp | 0/1 | - | - | .* | 1 CDG not checked |' lim/case_study.md > /dev/null ||
    fail "the report does not say the CDG was not checked: $(grep dfsssp lim/case_study.md)"
fi

# the plain comparison table names the years
"$FT" campaign-table cs | grep '| year 2 | ftdrb |' > /dev/null || fail "campaign-table: no 'year 2' row"

# an ibnetdiscover dump (a director fabric whose ASICs share the chassis GUID) instead of a generator
"$FT" campaign --case-study --fabric "$DATA/ibnetdiscover_director.net" --years 1 --seeds 1 --link-rate 5% \
  --switch-rate 5% --engines ft-minhop,ftdrb --pattern none -j 2 -q --out dump > dump.md 2> dump.err ||
  fail "case study of a dump: $(cat dump.err)"
for y in 0 1; do grep "^| $y | " dump.md > /dev/null || fail "dump: no row for year $y"; done
grep '^\*\*Recommendation for ibnetdiscover\\_director.net:\*\*' dump.md > /dev/null ||
  fail "dump: no recommendation line: $(grep Recommendation dump.md)"

# usage mistakes: exit 2, nothing created
bad() {
  rc=0; "$FT" campaign --gen "$SPEC" --engines ftree-misroute -q --out bad "$@" > err.txt 2>&1 || rc=$?
  [ "$rc" = 2 ] || fail "'$*': exit $rc, expected 2 ($(cat err.txt))"
  grep "see 'ftroute campaign --help'" err.txt > /dev/null || fail "'$*': no help pointer: $(cat err.txt)"
  [ ! -e bad ] || fail "'$*' created the output directory"
}
bad --years 0
bad --years 2 --link-failures 1
bad --case-study --switch-failures 1
bad --years 2 --link-rate 150%
bad --years 2 --link-rate 1% --link-ratio 13
bad --years 2 --link-ratio -1
bad --link-rate 1%
echo "PASS"
