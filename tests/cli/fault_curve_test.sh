#!/usr/bin/env bash
# scripts/fault_curve.py (seed 001's Fig. 3 statistics, docs/REPRODUCTION.md) on a results.csv
# written here with known figures: the per-count table, the saturated and unsaturated summaries
# (routed runs only, as the paper counts them), and the refusals (several engines, no fault-free
# run, not a results.csv). Then the campaign's engine variants from the command line: a variant's
# runs are keyed by the whole entry, and a bad entry stops the campaign before anything is written.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
script=$1 ftroute=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
csv=$scratch/results.csv
python3 - "$csv" <<'PY'
import csv, sys
cols = ["fabric", "engine", "link_failures", "switch_failures", "seed", "status", "simulated",
        "sim_accepted", "sim_latency", "sim_net_latency"]
# throughput 0.5 fault-free, -2 % per fault; latency +10 % per fault; one refused run at 4 faults
# with a throughput that would spoil the mean if it counted
rows = []
for k in range(0, 5):
    for seed in (1, 2):
        rows.append(["fattree:4,3", "e", k, 0, seed, "ok", 1, 0.5 * (1 - 0.02 * k), 100 * (1 + 0.1 * k), 10 * (1 + 0.1 * k)])
rows.append(["fattree:4,3", "e", 4, 0, 3, "refused", 0, 0.01, 0, ""])
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(cols)
    w.writerows(rows)
PY
table=$(python3 "$script" "$csv")
[ "$(grep -c '^| [0-9]' <<<"$table")" = 5 ] || { echo "FAIL: table rows: $table"; exit 1; }
grep -q '^| 4 | 2/3 | 0.4600 | -8.0 % | -2.0 % | 140.0 | 1.40x | 14.0 | 1.40x |$' <<<"$table" || { echo "FAIL: 4-fault row: $table"; exit 1; }
out=$(python3 "$script" "$csv" --summary saturated)
want="first fault -2.0 %, -2.0 %/fault over 0-3 and -2.0 %/fault over 1-4, -8.0 % at 4; latency at 4: 1.40x network, 1.40x packet; routed runs 10 of 11"
[ "$out" = "$want" ] || { echo "FAIL: saturated summary: $out"; exit 1; }
out=$(python3 "$script" "$csv" --summary unsaturated)
[ "$out" = "within 0.5 % of fault-free up to 0 faults, -8.0 % at 4; routed runs 10 of 11" ] || { echo "FAIL: unsaturated: $out"; exit 1; }
# several engines: refused without --engine, and --engine picks one
sed 's/,e,/,f,/' "$csv" | tail -n +2 >> "$csv"
if err=$(python3 "$script" "$csv" 2>&1); then echo "FAIL: two engines accepted"; exit 1; fi
grep -q 'several engines (e, f)' <<<"$err" || { echo "FAIL: engines not named: $err"; exit 1; }
python3 "$script" "$csv" --engine f --summary unsaturated > /dev/null
# no fault-free run, not a results.csv, a missing file: exit 1 with the reason
grep -v ',e,0,0,' "$csv" > "$scratch/nozero.csv"
if err=$(python3 "$script" "$scratch/nozero.csv" --engine e 2>&1); then echo "FAIL: no fault-free run accepted"; exit 1; fi
grep -q 'no routed, simulated fault-free run of e' <<<"$err" || { echo "FAIL: $err"; exit 1; }
echo "a,b" > "$scratch/other.csv"
if err=$(python3 "$script" "$scratch/other.csv" 2>&1); then echo "FAIL: other csv accepted"; exit 1; fi
grep -q 'not a campaign results.csv' <<<"$err" || { echo "FAIL: $err"; exit 1; }

# Engine variants on the command line (docs/campaign.md "Engine variants").
camp=$scratch/camp
timeout 120 "$ftroute" campaign --gen fattree:4,3 --engines 'ftree-misroute,ftree-misroute[updn_fallback=false,max_valleys=2]' \
  --link-failures 0,8 --seeds 3 --jobs 2 -q --out "$camp" > "$scratch/camp.log" 2>&1
n=$(grep -c '^"fattree:4,3","ftree-misroute\[updn_fallback=false,max_valleys=2\]",' "$camp/results.csv" || true)
[ "$n" = 6 ] || { echo "FAIL: variant rows: $n"; cat "$camp/results.csv"; exit 1; }
# the variant without the last resort refuses what the default routes (seed 2 of 8 cut cables)
refused=$(python3 -c "import csv,sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r['status']=='refused' and '[' in r['engine']))" "$camp/results.csv")
[ "$refused" -ge 1 ] || { echo "FAIL: the variant's options did not apply (nothing refused)"; exit 1; }
refused=$(python3 -c "import csv,sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r['status']=='refused' and '[' not in r['engine']))" "$camp/results.csv")
[ "$refused" = 0 ] || { echo "FAIL: the default engine refused $refused runs"; exit 1; }
for bad in 'ftree-misroute[vls=99]' 'ftree-misroute[nope=1]' 'ftree-misroute[vls=2' 'opensm:updn[x=1]'; do
  rm -rf "$scratch/bad"
  if err=$(timeout 60 "$ftroute" campaign --gen fattree:4,3 --engines "$bad" --out "$scratch/bad" 2>&1); then
    echo "FAIL: '$bad' accepted"; exit 1
  fi
  [ ! -e "$scratch/bad" ] || { echo "FAIL: '$bad' left $scratch/bad"; exit 1; }
  grep -q 'ftroute campaign:' <<<"$err" || { echo "FAIL: '$bad': $err"; exit 1; }
done
echo "fault_curve: ok"
