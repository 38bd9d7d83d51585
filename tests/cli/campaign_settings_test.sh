#!/usr/bin/env bash
# `ftroute campaign` records the settings outside the run key in DIR/campaign.conf (--shift-order
# among them, docs/campaign.md "Recorded settings"): a resume with another --shift-order exits 1
# with one line naming the directory, the setting and both values, and leaves the directory
# byte-identical; a directory without campaign.conf (older ftroute) resumes as index order;
# campaign-merge refuses parts with different orders; summary.txt and campaign-table show them.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$1; D=$2
rm -rf "$D"; mkdir -p "$D"; cd "$D"
fail() { echo "FAIL: $*"; exit 1; }
run() { "$FT" campaign --gen fattree:4,2 --engines ft-minhop --link-failures 0 -j 1 -q --pattern shift-exchange "$@"; }
snap() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

run --seeds 1 --out a
grep -x 'shift_order index' a/campaign.conf > /dev/null || fail "no 'shift_order index' in a/campaign.conf: $(cat a/campaign.conf)"
sed -n 1p a/summary.txt | grep 'shift order index' > /dev/null || fail "summary.txt header: $(sed -n 1p a/summary.txt)"
before=$(snap a)
rc=0; run --seeds 2 --shift-order random --out a > err.txt 2>&1 || rc=$?
cat err.txt
[ "$rc" = 1 ] || fail "resume with --shift-order random: exit $rc, expected 1"
[ "$(wc -l < err.txt)" = 1 ] || fail "expected one line"
grep 'ftroute campaign: a holds results with shift_order index' err.txt | grep 'shift_order random (--shift-order)' > /dev/null ||
  fail "message does not name the directory, setting and both values"
[ "$(snap a)" = "$before" ] || fail "the refused run changed the directory"
run --seeds 2 --out a
[ "$(($(wc -l < a/results.csv) - 1))" = 2 ] || fail "resume with the recorded order did not add the run"

# an older directory (no campaign.conf) means index order
run --seeds 1 --out old
rm old/campaign.conf
before=$(snap old)
rc=0; run --seeds 2 --shift-order random --out old > err2.txt 2>&1 || rc=$?
cat err2.txt
[ "$rc" = 1 ] && grep 'no campaign.conf' err2.txt > /dev/null || fail "old directory resumed with random (exit $rc)"
[ "$(snap old)" = "$before" ] || fail "the refused run changed the old directory"
run --seeds 2 --out old
[ "$(($(wc -l < old/results.csv) - 1))" = 2 ] || fail "old directory did not resume as index"
[ ! -e old/campaign.conf ] || fail "campaign.conf added to an old directory"

# merge and table
run --seeds 1 --shift-order random --out r
grep -x 'shift_order random' r/campaign.conf > /dev/null || fail "no 'shift_order random' in r/campaign.conf"
rc=0; "$FT" campaign-merge a r --out m > err3.txt 2>&1 || rc=$?
cat err3.txt
[ "$rc" = 1 ] && grep 'shift_order' err3.txt > /dev/null || fail "merge of index and random orders: exit $rc"
[ ! -e m ] || fail "refused merge left an output directory"
"$FT" campaign-merge a a/results.csv --out m2 > /dev/null 2>&1
cmp a/campaign.conf m2/campaign.conf || fail "merged campaign.conf differs"
"$FT" campaign-table r > t.md
sed -n 1p t.md | grep 'Campaign settings (r): pattern shift-exchange, shift order random' > /dev/null || fail "table header: $(sed -n 1p t.md)"

# the simulator model (--sim-packet / --sim-buffer / --sim-link-latency) is recorded the same way;
# a directory from before it was recorded (a, its key removed) means flitsim's defaults 16 / 64 / 1
grep -x 'sim_packet 16' a/campaign.conf > /dev/null && grep -x 'sim_buffer 64' a/campaign.conf > /dev/null &&
  grep -x 'sim_link_latency 1' a/campaign.conf > /dev/null || fail "model not recorded: $(cat a/campaign.conf)"
grep -v '^sim_packet \|^sim_buffer \|^sim_link_latency ' a/campaign.conf > a/c2 && mv a/c2 a/campaign.conf
before=$(snap a)
rc=0; run --seeds 3 --sim-packet 32 --sim-buffer 128 --out a > err4.txt 2>&1 || rc=$?
cat err4.txt
[ "$rc" = 1 ] && grep 'sim_packet 16' err4.txt | grep 'sim_packet 32 (--sim-packet)' > /dev/null ||
  fail "resume with another packet size: exit $rc"
[ "$(snap a)" = "$before" ] || fail "the refused model change altered the directory"
run --seeds 3 --out a
[ "$(($(wc -l < a/results.csv) - 1))" = 3 ] || fail "directory without the model keys did not resume with the defaults"
# out-of-range and inconsistent values: a usage error naming the option, exit 2, nothing written
for bad in "--sim-packet 0" "--sim-link-latency 0" "--sim-packet 32 --sim-buffer 16"; do
  rc=0; run --seeds 1 $bad --out bad > err5.txt 2>&1 || rc=$?
  cat err5.txt
  [ "$rc" = 2 ] && sed -n 1p err5.txt | grep -e "${bad%% *}" > /dev/null || fail "$bad: exit $rc"
  [ ! -e bad ] || fail "$bad left a directory"
done
grep 'cannot hold a packet of --sim-packet 32' err5.txt > /dev/null || fail "buffer below packet: $(cat err5.txt)"
run --seeds 1 --sim-packet 32 --sim-buffer 206 --sim-link-latency 3 --out p
grep -x 'sim_buffer 206' p/campaign.conf > /dev/null || fail "model not recorded: $(cat p/campaign.conf)"
echo "PASS"
