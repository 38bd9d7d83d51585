#!/usr/bin/env bash
# One syntax (issue 18 item 4), run as a user would:
#  * every subcommand: an unknown option is a usage error: exit 2, its one line
#    "ftroute CMD: unknown option '--no-such-option'" and "see 'ftroute CMD --help'", nothing else;
#  * the same fabric from every spelling: `gen fattree:4,3` = `gen fattree --k 4 --n 3` =
#    `gen 4ary3tree` (identical .net bytes), and for every kind; `route/compare/sim --gen SPEC` =
#    the same commands on the generated file; kns-size kns:K,N = --k K --n N; campaign --gen kns:..;
#  * the fabric positional or --fabric/-f, both accepted (check, export, route, compare, sim);
#  * --opt=value and -fVALUE;
#  * the port syntax "NODE"[PORT] and the older NODE[PORT]: same faults (gen, sim);
#  * bad specs, unknown keywords and bad --json use: exit 2, one line + the see-help line;
#  * `route -e updn` (an OpenSM engine) and unknown engines: usage errors naming how OpenSM's engines
#    run (`compare --opensm`, `campaign --engines opensm:NAME`); `compare --engine X` points to --engines;
#  * bash completion (packaging/) completes the fabric kinds after `gen` and `--gen`.
#   syntax_test.sh FTROUTE NETS_DIR WORKDIR
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
FT=$(readlink -f "$1"); NETS=$(readlink -f "$2"); W=$3
rm -rf "$W"; mkdir -p "$W"; cd "$W"
fail() { echo "FAIL: $*"; exit 1; }

# usage_error CMD ARGS...: exit 2, exactly two stderr lines: "ftroute CMD: ..." and the see line
usage_error() {
  local cmd=$1
  local rc=0
  "$FT" "$@" > u.out 2> u.err || rc=$?
  [ "$rc" -eq 2 ] || fail "ftroute $*: exit $rc, expected 2:"$'\n'"$(cat u.err)"
  [ "$(wc -l < u.err)" -eq 2 ] || fail "ftroute $*: not 2 stderr lines:"$'\n'"$(cat u.err)"
  head -1 u.err | grep "^ftroute $cmd: " > /dev/null || fail "ftroute $*: first line is not 'ftroute $cmd: ...': $(head -1 u.err)"
  [ "$(sed -n 2p u.err)" = "see 'ftroute $cmd --help'" ] || fail "ftroute $*: second line: $(sed -n 2p u.err)"
  [ ! -s u.out ] || fail "ftroute $*: wrote to stdout"
  echo "ok: ftroute $* -> $(head -1 u.err)"
}

# ---- every subcommand: unknown option ----
cmds=$("$FT" --help | sed -n '/^commands:/,$p' | awk 'NR > 1 {print $1}')
[ "$(echo "$cmds" | wc -w)" -ge 14 ] || fail "ftroute --help lists too few commands: $cmds"
for c in $cmds; do
  usage_error "$c" --no-such-option
  grep -qx "ftroute $c: unknown option '--no-such-option'" u.err || fail "$c: $(head -1 u.err)"
done
rc=0; "$FT" no-such-command 2> u.err || rc=$?
[ $rc -eq 2 ] && [ "$(cat u.err)" = "ftroute: unknown command 'no-such-command'"$'\n'"see 'ftroute --help'" ] ||
  fail "unknown command: exit $rc: $(cat u.err)"

# ---- same fabric from every spelling of gen ----
same() {  # same A B: identical files
  cmp -s "$1" "$2" || fail "$1 and $2 differ:"$'\n'"$(diff "$1" "$2" | sed -n 1,10p)"
  echo "ok: $1 = $2"
}
"$FT" gen fattree:4,3 -o a.net 2> /dev/null
"$FT" gen fattree --k 4 --n 3 -o b.net 2> /dev/null
"$FT" gen 4ary3tree -o c.net 2> /dev/null
"$FT" gen fattree:n=3,k=4 -o d.net 2> /dev/null
same a.net b.net; same a.net c.net; same a.net d.net
cmp -s a.net "$NETS/4ary3tree.net" || true  # (the shipped file has its own header)
while read -r spec legacy; do
  "$FT" gen "$spec" -o s.net 2> /dev/null
  # shellcheck disable=SC2086
  "$FT" gen $legacy -o l.net 2> /dev/null
  same s.net l.net
done << 'EOF'
fattree2:8,4,8 fattree2 --leaves 8 --spines 4 --hosts-per-leaf 8
fattree3:8,2 fattree3 --radix 8 --pods 2
mesh:4x4 mesh --dims 4x4
torus:3x3x3,2 torus --dims 3x3x3 --hosts 2
torus:4x4,hosts=2,radix=8 torus --dims 4x4 --hosts 2 --radix 8
kns:4,2,2 kns --k 4 --n 2 --p 2
kns:4,2,ki=2 kns --k 4 --n 2 --ki 2
ctree:leaves=8,spines=4,hosts=4/4/0/2,links=2 ctree --spec leaves=8,spines=4,hosts=4/4/0/2,links=2
ctree:leaves=8,hosts=4/4/0/2 ctree --leaves 8 --hosts 4/4/0/2
EOF
# faults with either port spelling: the same fabric (the header echoes the option as given)
"$FT" gen fattree:2,3 --remove-link '"S0_00"[3]' -o p1.net 2> /dev/null
"$FT" gen fattree:2,3 --remove-link 'S0_00[3]' -o p2.net 2> /dev/null
[ "$(grep -v '^#' p1.net)" = "$(grep -v '^#' p2.net)" ] || fail "--remove-link: the two port spellings differ"
grep -q 'S0_00"\[3\]' p1.net || fail "p1.net does not name the removed link"
echo "ok: --remove-link '\"S0_00\"[3]' = --remove-link S0_00[3]"

# ---- route / compare / sim: --gen SPEC = the generated file; positional = --fabric ----
"$FT" route -q -e ftree-misroute a.net -o r1.dump
"$FT" route -q -e ftree-misroute --gen fattree:4,3 -o r2.dump
"$FT" route -q -e ftree-misroute --fabric a.net -o r3.dump
"$FT" route -q -e ftree-misroute -f a.net --out=r4.dump   # --opt=value
"$FT" route -q -eftree-misroute -fa.net -or5.dump             # -fVALUE
same r1.dump r2.dump; same r1.dump r3.dump; same r1.dump r4.dump; same r1.dump r5.dump
"$FT" compare a.net --engines ft-minhop,ftree-misroute | sed 1d | cut -c1-60 > c1.txt
"$FT" compare --gen fattree:4,3 --engines=ft-minhop,ftree-misroute | sed 1d | cut -c1-60 > c2.txt
same c1.txt c2.txt
# (the report's "checked in 0.001 s" line is the one line that may differ between two runs)
"$FT" check a.net -l r1.dump | sed '/^checked in /d' > k1.txt
"$FT" check --fabric a.net --lfts r1.dump | sed '/^checked in /d' > k2.txt
"$FT" check --fabric=a.net --lfts=r1.dump | sed '/^checked in /d' > k3.txt
same k1.txt k2.txt; same k1.txt k3.txt
"$FT" export a.net -l r1.dump --to dump_fts -o e1.txt
"$FT" export -f a.net -l r1.dump --to dump_fts -o e2.txt
same e1.txt e2.txt
T=$NETS/torus4x4.net
"$FT" sim "$T" --engine ft-dor --measure 300 --warmup 100 --title t > m1.txt
"$FT" sim --fabric "$T" --engine ft-dor --measure 300 --warmup 100 --title t > m2.txt
"$FT" gen torus:4x4 -o t.net 2> /dev/null
"$FT" sim --gen torus:4x4 --engine ft-dor --measure 300 --warmup 100 --title t > m3.txt
"$FT" sim t.net --engine ft-dor --measure 300 --warmup 100 --title t > m4.txt
same m1.txt m2.txt; same m3.txt m4.txt
# sim --fail in the console port syntax and the older one: the same run
"$FT" sim "$T" --engine ft-dor --measure 300 --warmup 100 --title t --fail '150:"S1_1"[2]' > f1.txt
"$FT" sim "$T" --engine ft-dor --measure 300 --warmup 100 --title t --fail 150:S1_1[2] > f2.txt
same f1.txt f2.txt
cmp -s f1.txt m1.txt && fail "--fail changed nothing"

# ---- kns-size / kns-faults / campaign with specs ----
"$FT" kns-size kns:4,2,2 > n1.txt
"$FT" kns-size --k 4 --n 2 --p 2 > n2.txt
same n1.txt n2.txt
"$FT" kns-faults kns:4,2 --faults 2 --samples 50 > n3.txt
"$FT" kns-faults --k 4 --n 2 --faults 2 --samples 50 > n4.txt
same n3.txt n4.txt
"$FT" campaign -q --gen kns:4,2 --engines kns --seeds 1 --link-failures 0,1 -j 1 --out camp
[ "$(grep -c '^"kns:4,2",kns,[01],0,1,ok,' camp/results.csv)" -eq 2 ] || fail "campaign --gen kns:4,2: not 2 rows:"$'\n'"$(cat camp/results.csv)"
echo "ok: campaign --gen kns:4,2"

# ---- bad input: one line + the see-help line, exit 2 ----
usage_error gen fattree:4,3,host=1 -o x.net
grep -q "unknown keyword 'host'" u.err || fail "unknown keyword not named"
usage_error gen nosuch:1 -o x.net
grep -q "unknown fabric kind 'nosuch'" u.err || fail "unknown kind not named"
usage_error gen fattree:4,x -o x.net
grep -q "bad number 'x' for n" u.err || fail "bad number not named"
usage_error gen fattree:2,2 --remove-link '"S0_0[1]' -o x.net
grep -q "no closing" u.err || fail "bad port not explained"
usage_error campaign --gen mesh:4x4,hosts=1,bogus=2 --engines ft-minhop --out cx
[ ! -e cx ] || fail "campaign with a bad spec left cx"
usage_error route -e ft-minhop --gen torus:4x -o x.dump
usage_error sim --gen torus:4x4 --engine ft-dor --fail '5:"S9_9"[1'
usage_error ftdrb-eval --topos torus:4x4,hosts=1,nope=1
usage_error kns-size kns:4
usage_error route -e ft-minhop a.net --gen fattree:4,3 -o x.dump
usage_error check --json=yes -f a.net -l r1.dump
usage_error gen fattree:2,2 -o x.net --json
# an engine name that is OpenSM's, not ftroute's: usage error naming the ways to run it
for e in updn minhop ftree dfsssp; do
  usage_error route -e "$e" a.net -o x.dump
  grep -F "'$e' is an OpenSM engine" u.err > /dev/null || fail "route -e $e: not called an OpenSM engine"
  grep -F "compare --opensm $e" u.err > /dev/null && grep -F "campaign --engines opensm:$e" u.err > /dev/null ||
    fail "route -e $e: no hint at compare --opensm / campaign --engines opensm:$e"
done
usage_error route -e no-such-engine a.net -o x.dump
grep -F "unknown engine 'no-such-engine'" u.err > /dev/null && grep -F 'ftree-misroute' u.err > /dev/null ||
  fail "route -e no-such-engine: the known engines are not listed"
# compare takes a list: route's --engine spelling points to --engines
for spelling in "--engine ft-minhop" "--engine=ft-minhop" "-e ft-minhop"; do
  # shellcheck disable=SC2086
  usage_error compare a.net $spelling
  grep -F -- "use --engines ft-minhop" u.err > /dev/null || fail "compare $spelling: no hint at --engines"
done
[ ! -e x.net ] && [ ! -e x.dump ] || fail "an output was left behind"
# scripts/ftsim.sh --help: every engine named in its --engine examples exists (ftroute's or OpenSM's)
known=" $("$FT" engines --json | python3 -c 'import json,sys; print(" ".join(e["name"] for e in json.load(sys.stdin)["engines"]))') "
known+=" minhop updn dnup file ftree lash dor torus-2QoS nue dfsssp sssp no_fallback "
line=$(bash "$NETS/../../scripts/ftsim.sh" --help | grep -E -e '--engine LIST')
examples=$(sed -n 's/.*e\.g\. \([^;)]*\).*/\1/p' <<< "$line" | sed 's/ or /,/g; s/,/ /g')
[ -n "$examples" ] || fail "ftsim.sh --help: no engine examples found in: $line"
for e in $examples; do
  [[ $known == *" $e "* ]] || fail "ftsim.sh --help names engine '$e', which neither ftroute nor OpenSM has"
done
echo "ok: ftsim.sh --help engine examples exist: $examples"
# ftsim.sh names an option given without its value, and a --timeout that is no number, before it
# starts anything (bash once said "$2: unbound variable" / "integer expression expected")
FS="$NETS/../../scripts/ftsim.sh"
for args in "-w" "-w $PWD/fsw opensm-once --engine" "-w $PWD/fsw opensm-once --timeout abc" "-w $PWD/fsw opensm-once --sweep x"; do
  rc=0
  # shellcheck disable=SC2086
  bash "$FS" $args > fs.out 2> fs.err || rc=$?
  [ $rc -eq 1 ] && [ "$(grep -c '^ftsim: error: ' fs.err)" = 1 ] && ! grep -q 'unbound variable\|integer expression' fs.err ||
    fail "ftsim.sh $args: exit $rc, $(cat fs.err)"
done
grep -q "needs a value" <(bash "$FS" -w "$PWD/fsw" opensm-once --engine 2>&1) || fail "ftsim.sh: no 'needs a value'"
echo "ok: ftsim.sh names options without values and bad numbers"

# ---- engine options: one [ENGINE:]k=v syntax (route, sim, compare, the plugin) ----
"$FT" route --gen fattree:4,2 -e ftree-misroute --opt ftree-misroute:max_valleys=4 -o o1.dump -q
"$FT" route --gen fattree:4,2 -e ftree-misroute --opt max_valleys=4 -o o2.dump -q
cmp -s o1.dump o2.dump || fail "route --opt ENGINE:k=v and --opt k=v differ"
# the ENGINE: prefix is read, not ignored: an out-of-range value behind it is refused. A bad
# engine option is a usage error like any other option (exit 2), in every command, before any work.
rc=0; "$FT" route --gen fattree:4,2 -e ftree-misroute --opt ftree-misroute:max_valleys=0 -o o3.dump 2> o3.err || rc=$?
[ $rc -eq 2 ] && [ ! -e o3.dump ] || fail "route --opt ftree-misroute:max_valleys=0: exit $rc"
grep -q "option max_valleys=0 for engine 'ftree-misroute': must be 1..4096" o3.err || fail "$(cat o3.err)"
grep -qF "see 'ftroute route --help'" o3.err || fail "route --opt max_valleys=0: not a usage error: $(cat o3.err)"
# another engine's options with one --engine: an error, no output
rc=0; "$FT" route --gen fattree:4,2 -e ftree-misroute --opt ft-lash:max_vls=4 -o o3.dump 2> o3.err || rc=$?
[ $rc -eq 2 ] && [ ! -e o3.dump ] || fail "route --opt ft-lash:... -e ftree-misroute: exit $rc"
grep -q "is for engine 'ft-lash', not 'ftree-misroute'" o3.err || fail "$(cat o3.err)"
rc=0; "$FT" sim --gen fattree:4,2 -e ftree-misroute --opt ft-lash:max_vls=4 > o4.txt 2> o4.err || rc=$?
[ $rc -eq 2 ] || fail "sim --opt ft-lash:... -e ftree-misroute: exit $rc"
grep -q "is for engine 'ft-lash', not 'ftree-misroute'" o4.err || fail "$(cat o4.err)"
usage_error sim --gen fattree:4,2 -e ft-lash --opt fill=random
grep -q "option fill=random for engine 'ft-lash': must be first|even" u.err || fail "sim fill=random: $(cat u.err)"
# compare checks every entry's options before it reads the fabric or routes anything: the bad
# entry is the last, and the fabric file does not exist
usage_error compare no-such.net --engines 'ft-minhop,ftree-misroute[max_valleys=0]'
grep -q "option max_valleys=0 for engine 'ftree-misroute'" u.err || fail "compare [max_valleys=0]: $(cat u.err)"
usage_error compare no-such.net --engines ft-minhop,ftree-misroute --opt ftree-misroute:bogus=1
grep -q "unknown option 'bogus' for engine 'ftree-misroute'" u.err || fail "compare --opt bogus: $(cat u.err)"
usage_error compare no-such.net --engines ft-minhop --opensm ftree-misroute --opt ftree-misroute:max_valleys=0
grep -q "option max_valleys=0 for engine 'ftree-misroute'" u.err || fail "compare --opensm ftree-misroute: $(cat u.err)"
usage_error campaign --gen fattree:4,2 --engines 'ftree-misroute[max_valleys=0]' --out cx
[ ! -e cx ] || fail "campaign with a bad engine option left cx"
# OpenSM's engine names where ftroute's are expected: named as OpenSM's, with the spelling that runs them
for cmd in "compare a.net --engines ft-minhop,updn" "campaign --gen fattree:4,2 --engines updn --out cx"; do
  # shellcheck disable=SC2086
  usage_error $cmd
  grep -F "'updn' is an OpenSM engine" u.err > /dev/null && grep -F "opensm:updn" u.err > /dev/null &&
    grep -F "compare --opensm updn" u.err > /dev/null || fail "$cmd: $(cat u.err)"
done
[ ! -e cx ] || fail "campaign with an OpenSM engine name left cx"
echo "ok: --opt [ENGINE:]k=v"

# ---- bash completion of the new spellings ----
comp() {  # comp WORDS... -> completions of the last word (FT stands in for `ftroute`)
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ftroute; printf "%s\n" "${COMPREPLY[@]}"' _ \
    "$NETS/../../packaging/ftroute.bash-completion" "$FT" "$@"
}
[ "$(comp gen fattree | tr '\n' ' ')" = "fattree: fattree2: fattree3: " ] || fail "completion of 'gen fattree': $(comp gen fattree)"
comp route --gen to | grep -x 'torus:' > /dev/null || fail "completion of '--gen to': $(comp route --gen to)"
comp kns-size k | grep -x 'kns:' > /dev/null || fail "completion of 'kns-size k'"
echo "ok: bash completion of fabric kinds"
echo "PASS: one syntax"
