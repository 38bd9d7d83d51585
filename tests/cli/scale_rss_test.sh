#!/usr/bin/env bash
# Issue 15: the full CLI path on a radix-24 3-level fat tree (3,456 HCAs, 720 switches, 4,176
# LIDs, 3.0M LFT entries, a ~200 MB dump): `ftroute route` then `ftroute check`, each with its peak
# RSS (GNU time %M) under a bound proportional to the LFT size: 32 MiB + 8 bytes per LFT entry
# (~56 MiB here). Before streaming and the fast reader they took 750 MB and 900 MB. Not a timing test.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$1; D=$2
rm -rf "$D"; mkdir -p "$D"; cd "$D"
command -v /usr/bin/time > /dev/null || { echo "SKIP: /usr/bin/time (package time) missing"; exit 0; }
"$FT" gen fattree3 --radix 24 -o r24.net > /dev/null
/usr/bin/time -f "%M" -o route.rss "$FT" route -e ftree-misroute r24.net -o r24.dump 2> route.err
cat route.err
entries=$(sed -n 's/.* \([0-9]*\) LFT entries.*/\1/p' route.err | sed -n 1p)
[ -n "$entries" ] && [ "$entries" -gt 2000000 ] || { echo "FAIL: no LFT entry count in the route summary"; exit 1; }
bound=$(( (32 * 1048576 + 8 * entries) / 1024 ))   # KiB
/usr/bin/time -f "%M" -o check.rss "$FT" check -f r24.net -l r24.dump > check.out
tail -3 check.out
grep -q "RESULT: PASS" check.out || { echo "FAIL: check did not pass"; exit 1; }
r=$(tail -1 route.rss); c=$(tail -1 check.rss)
echo "LFT entries $entries, dump $(stat -c %s r24.dump) bytes; peak RSS route ${r} KiB, check ${c} KiB, bound ${bound} KiB"
[ "$r" -le "$bound" ] || { echo "FAIL: route peak RSS ${r} KiB > ${bound} KiB"; exit 1; }
[ "$c" -le "$bound" ] || { echo "FAIL: check peak RSS ${c} KiB > ${bound} KiB"; exit 1; }
rm -f r24.dump
echo "PASS"
