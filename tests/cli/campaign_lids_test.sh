#!/usr/bin/env bash
# `ftroute campaign --fabric FILE` keeps the LIDs of the file (issue 33 item 5), as `route` and
# `compare` do: on a .net whose LIDs are not 1..N in node order (as on a live subnet), the
# fault-free run of every engine has the EFI, VLs and hops `compare` reports for the same file;
# `--lids assign` (the old renumbering) gives other numbers; campaign.conf and summary.txt say
# which LIDs were used, and a resume with the other choice is refused.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$1; D=$2
rm -rf "$D"; mkdir -p "$D"; cd "$D"
fail() { echo "FAIL: $*"; exit 1; }

"$FT" gen fattree:4,3 -o plain.net > /dev/null
# LIDs in a shuffled node order with gaps (switch LID in the header comment, CA LID in the port line)
python3 - <<'PY'
import random
lines = open("plain.net").read().split("\n")
heads = [i for i, l in enumerate(lines) if l.startswith(("Switch", "Hca", "Ca"))]
rng = random.Random(7)
order = heads[:]
rng.shuffle(order)
lid, lids = 1, {}
for i in order:
    lid += rng.choice([1, 2, 3])
    lids[i] = lid
out, kind = [], None
for i, l in enumerate(lines):
    if i in lids:
        kind = (l.split()[0], lids[i])
        if kind[0] == "Switch":
            l += '\t# "%s" lid %d lmc 0' % (l.split('"')[1], kind[1])
    elif l.startswith("[") and kind and kind[0] != "Switch":
        l += "\t# lid %d lmc 0" % kind[1]
    elif l == "":
        kind = None
    out.append(l)
open("lids.net", "w").write("\n".join(out))
PY
E=ftdrb,ft-minhop,ftree-misroute
"$FT" compare lids.net --engines $E --json > compare.json
"$FT" campaign --fabric lids.net --engines $E --seeds 1 -j 1 -q --out camp
"$FT" campaign --fabric lids.net --engines $E --seeds 1 -j 1 -q --lids assign --out old
grep -qx 'lids file' camp/campaign.conf || fail "campaign.conf: $(cat camp/campaign.conf)"
grep -qx 'lids assign' old/campaign.conf || fail "old/campaign.conf: $(cat old/campaign.conf)"
[[ "$(sed -n 1p camp/summary.txt)" == *'lids file'* ]] || fail "summary.txt header: $(sed -n 1p camp/summary.txt)"
python3 - <<'PY' || fail "campaign and compare disagree on the same file"
import csv, json
cmp = {r["name"]: r for r in json.load(open("compare.json"))["rows"]}
def runs(d):
    return {r["engine"]: r for r in csv.DictReader(open(d + "/results.csv", newline=""))}
camp, old = runs("camp"), runs("old")
differ = 0
for e, c in cmp.items():
    r = camp[e]
    got = (int(r["efi_max"]), int(r["vls_used"]), round(float(r["hops_avg"]), 4))
    want = (c["efi"]["max"], len(c["deadlock"]["vls_used"]), round(c["hops"]["avg"], 4))
    print(e, "campaign", got, "compare", want, "--lids assign", (old[e]["efi_max"], old[e]["vls_used"]))
    assert got == want, (e, got, want)
    differ += (int(old[e]["efi_max"]), float(old[e]["efi_avg"])) != (int(r["efi_max"]), float(r["efi_avg"]))
assert differ, "renumbered LIDs route like the file's: this test could not see a renumbering"
PY
rc=0; "$FT" campaign --fabric lids.net --engines $E --seeds 2 -j 1 -q --lids assign --out camp 2> err.txt || rc=$?
[ "$rc" = 1 ] && grep -q 'holds results with lids file' err.txt && grep -q 'lids assign (--lids)' err.txt ||
  fail "resume with --lids assign: exit $rc, $(cat err.txt)"
echo "PASS: campaign on a .net with shuffled LIDs = compare on the same file (EFI, VLs, hops)"
