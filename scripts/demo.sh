#!/usr/bin/env bash
# scripts/demo.sh - the main job, end to end on a simulated fabric:
#   install deps -> build -> ibsim fabric -> OpenSM routes it (built-in engine, or an ftroute
#   engine through libftroute.so) -> read the LFTs back from the switches and validate them
#   (`ftroute check`) -> inject a link fault (ibsim Unlink) -> wait for OpenSM's re-route ->
#   read back + validate again -> show which entries changed and that the dead link is unused
#   -> report -> stop everything. Exits non-zero if any step fails.
#
# Options:
#   --engine NAME     routing engine (default: ftree-misroute when build/plugin/libftroute.so
#                     exists, else OpenSM's ftree). Names OpenSM does not have built in are
#                     ftroute engines and are loaded with event_plugin_name ftroute.
#   --net FILE        fabric: a .net file or `ibnetdiscover` output, also as saved from a console
#                     (read by `ftroute export --to ibsim` into WORKDIR/input.net, which ibsim
#                     loads; default ibsim_topologies/nets/4ary3tree.net, generated if missing)
#   --fault 'NODE PORT'  link to cut (default: the first switch-to-switch link of a leaf)
#   --plugin-options STR  event_plugin_options for libftroute.so
#   --qos / --no-qos  multi-VL check on / off. Default: on for engines that rely on per-path SLs
#                     (kns, ftdrb, ft-dor, dfsssp, lash, nue, torus-2QoS), and turned on (OpenSM
#                     restarted) when the plugin logs that the engine uses more than one VL.
#                     On: OpenSM runs with `qos TRUE`, the SLs its SA hands out for every path
#                     (libftroute.so's path_sl_dump, written at each SUBNET UP; without the plugin
#                     built, ftroute-pathsl asks the SA one PathRecord per pair) and
#                     opensm-sl2vl.dump go to `ftroute check --sl/--sl2vl`, so the deadlock check
#                     is per VL. Off: every path is judged on SL 0 / one VL.
#   --workdir DIR     default ./run/demo
#   --build-dir DIR   default ./build
#   --no-deps / --no-build   skip install-deps.sh / the build
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$REPO/build
W=$REPO/run/demo
NET=""
ENGINE=""
FAULT=""
POPTS=""
DEPS=1
DOBUILD=1
QOS=auto
while [ $# -gt 0 ]; do
  case $1 in
    --engine) ENGINE=$2; shift 2 ;;
    --net) NET=$(readlink -f "$2"); shift 2 ;;
    --fault) FAULT=$2; shift 2 ;;
    --plugin-options) POPTS=$2; shift 2 ;;
    --workdir) W=$2; shift 2 ;;
    --build-dir) BUILD=$(readlink -f "$2"); shift 2 ;;
    --no-deps) DEPS=0; shift ;;
    --no-build) DOBUILD=0; shift ;;
    --qos) QOS=1; shift ;;
    --no-qos) QOS=0; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "demo.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
  esac
done

t0=$SECONDS
step() { printf '\n==> [%3ds] %s\n' $((SECONDS - t0)) "$*"; }
fail() { echo "demo: FAILED: $*" >&2; exit 1; }
FTSIM() { bash "$REPO/scripts/ftsim.sh" -w "$W" "$@"; }

if [ $DEPS -eq 1 ]; then step "install dependencies"; bash "$REPO/scripts/install-deps.sh"; fi
if [ $DOBUILD -eq 1 ]; then
  step "build ($BUILD, -j2)"
  mkdir -p "$BUILD"
  cmake -S "$REPO" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$BUILD/demo-build.log" 2>&1 ||
    { tail -20 "$BUILD/demo-build.log" >&2; fail "cmake configure failed (log: $BUILD/demo-build.log)"; }
  TARGETS=(ftroute)
  # No `| grep -q` here: under pipefail, cmake killed by SIGPIPE after grep's early exit would
  # make the test fail at random and leave a stale (or no) libftroute.so.
  targets_help=$(cmake --build "$BUILD" --target help 2>/dev/null || true)
  [[ $targets_help == *"... ftroute_plugin"$'\n'* ]] && TARGETS+=(ftroute_plugin)
  [[ $targets_help == *"... ftroute-pathsl"$'\n'* ]] && TARGETS+=(ftroute-pathsl)
  if ! cmake --build "$BUILD" -j2 --target "${TARGETS[@]}" >> "$BUILD/demo-build.log" 2>&1; then
    grep -E 'error|Error' "$BUILD/demo-build.log" | sed -n 1,20p >&2
    fail "build failed (full log: $BUILD/demo-build.log)"
  fi
  echo "    built: ${TARGETS[*]}"
fi
FTROUTE=$BUILD/cli/ftroute
[ -x "$FTROUTE" ] || fail "$FTROUTE not built"
PLUGIN_SO=$(find "$BUILD/plugin" -maxdepth 1 -name 'libftroute.so' 2>/dev/null | sed -n 1p)
PATHSL=$BUILD/campaign/ftroute-pathsl

rm -rf "$W"; mkdir -p "$W"; W=$(cd "$W" && pwd)
trap 'FTSIM stop >/dev/null 2>&1 || true' EXIT

# ---- fabric ----
if [ -z "$NET" ]; then
  NET=$REPO/ibsim_topologies/nets/4ary3tree.net
  if [ ! -r "$NET" ]; then
    # Not shipped yet: generate the same 4-ary 3-tree (16 switches of 8 ports per level, 64 HCAs).
    NET=$W/4ary3tree.net
    awk -v k=4 -v n=3 'function p(b,e, r){r=1; while(e-->0) r*=b; return r}
      function dg(w,i){return int(w/p(k,i))%k}
      function sd(w,i,d){return w-dg(w,i)*p(k,i)+d*p(k,i)}
      function lk(a,pa,b,pb){L[a,pa]="\"" b "\"[" pb "]"; L[b,pb]="\"" a "\"[" pa "]"}
      BEGIN{m=p(k,n-1); print "# 4-ary 3-tree generated by scripts/demo.sh\n";
        for(l=0;l+1<n;l++) for(w=0;w<m;w++) for(j=0;j<k;j++) lk("L" l "_" w, k+1+j, "L" (l+1) "_" sd(w,l,j), 1+dg(w,l));
        for(h=0;h<p(k,n);h++) lk("H" h, 1, "L0_" int(h/k), 1+h%k);
        for(l=0;l<n;l++) for(w=0;w<m;w++){ id="L" l "_" w; print "Switch\t" 2*k " \"" id "\"";
          for(q=1;q<=2*k;q++) if((id,q) in L) print "[" q "]\t" L[id,q]; print "" }
        for(h=0;h<p(k,n);h++){ print "Hca\t1 \"H" h "\"\n[1]\t" L["H" h,1] "\n" } }' > "$NET"
  fi
fi
[ -r "$NET" ] || fail "cannot read net file $NET"
# A fabric file of the user's (an ibnetdiscover dump as saved, with director ASICs sharing a
# chassis GUID, CRLF line ends or a terminal log around it) goes through ftroute's own reader and
# is written as ibsim loads it: ibsim gets, and the fault is picked from, the fabric ftroute reads;
# a file it cannot read stops here with its file:line.
NET_GIVEN=$NET
case "$NET" in
  "$REPO/ibsim_topologies/nets/4ary3tree.net" | "$W/4ary3tree.net") ;;
  *)
    step "read $(basename "$NET") (ftroute export --to ibsim)"
    out=$("$FTROUTE" export "$NET" --to ibsim -o "$W/input.net" 2>&1) || { echo "$out" | sed 's/^/    /' >&2; fail "cannot read $NET"; }
    echo "$out" | sed 's/^/    /'
    NET=$W/input.net ;;
esac

# ---- engine ----
PLUGIN_OPTS_USED=""
BUILTIN=" minhop updn dnup file ftree lash dor torus-2QoS nue dfsssp sssp "
if [ -z "$ENGINE" ]; then
  if [ -n "$PLUGIN_SO" ]; then ENGINE=ftree-misroute; else ENGINE=ftree; fi
fi
OSM_OPTS=(--engine "$ENGINE")
if [[ "$BUILTIN" != *" $ENGINE "* ]]; then
  [ -n "$PLUGIN_SO" ] || fail "engine '$ENGINE' is an ftroute engine but $BUILD/plugin/libftroute.so is not built"
  OSM_OPTS+=(--plugin ftroute --plugin-dir "$(dirname "$PLUGIN_SO")")
  PLUGIN_OPTS_USED=1
  [ -z "$POPTS" ] || OSM_OPTS+=(--plugin-options "$POPTS")
fi
# Engines whose deadlock freedom rests on per-path SLs over several VLs (ftroute's kns with
# faults or indirect subnets, ftdrb, ft-dor on tori; OpenSM's SL-based engines). Others can turn
# out to need several VLs too: the plugin's log line "(VLs N," is checked after each routing.
SL_ENGINES=" kns ftdrb ft-dor dfsssp lash nue torus-2QoS "
if [ "$QOS" = auto ]; then
  if [[ "$SL_ENGINES" == *" $ENGINE "* ]]; then QOS=1; else QOS=0; QOS_AUTO=1; fi
fi
# The SA's path SLs come from the plugin's dump (plugin option path_sl_dump) wherever the plugin
# is loaded or can be: loaded next to OpenSM's own SL engines just for it.
SLDUMP=""
if [ -n "$PLUGIN_SO" ] && { [ -n "$PLUGIN_OPTS_USED" ] || [ "$QOS" = 1 ]; }; then
  SLDUMP=$W/path_sl.current.txt
  if [ -z "$PLUGIN_OPTS_USED" ]; then
    OSM_OPTS+=(--plugin ftroute --plugin-dir "$(dirname "$PLUGIN_SO")" --plugin-options "path_sl_dump=$SLDUMP")
  else
    # ftsim.sh takes the last --plugin-options: the user's options and the dump in one
    OSM_OPTS+=(--plugin-options "${POPTS:+$POPTS }path_sl_dump=$SLDUMP")
  fi
fi

# ---- fault: NODE PORT, and the peer end (from the .net file) ----
# Prints "node port peer peerport" for every switch-to-switch link, in file order.
sw_links() {
  awk 'NR==FNR { if ($1 ~ /^(Switch)$/ && match($0, /"[^"]+"/)) sw[substr($0, RSTART+1, RLENGTH-2)]=1; next }
       /^(Switch|Hca|Ca|Rt)[ \t]/ { cur=""; if (match($0, /"[^"]+"/)) cur=substr($0, RSTART+1, RLENGTH-2); cursw=($1=="Switch"); next }
       /^\[[0-9]+\]/ && cursw { lp=substr($0, 2, index($0, "]")-2); rest=substr($0, index($0, "]")+1);
         if (match(rest, /"[^"]+"\[[0-9]+\]/)) { s=substr(rest, RSTART, RLENGTH); rn=substr(s, 2, index(s, "\"[")-2);
           rp=substr(s, index(s, "\"[")+2); sub(/\].*/, "", rp); if (rn in sw) print cur, lp, rn, rp } }' "$1" "$1"
}
if [ -z "$FAULT" ]; then
  FAULT=$(sw_links "$NET" | sed -n 1p | cut -d' ' -f1,2)
  [ -n "$FAULT" ] || fail "no switch-to-switch link in $NET to cut (use --fault 'NODE PORT')"
fi
read -r FNODE FPORT <<< "$FAULT"
# The reader takes the first match but reads to the end: an `exit` would kill sw_links with SIGPIPE
# on any .net file over the pipe buffer (64 KiB), and pipefail would end the demo (exit 141).
PEER=$(sw_links "$NET" | awk -v n="$FNODE" -v p="$FPORT" '!found && $1==n && $2==p {print $3, $4; found=1}')
[ -n "$PEER" ] || fail "\"$FNODE\"[$FPORT] is not a switch-to-switch link in $NET"
read -r PNODE PPORT <<< "$PEER"

# ---- helpers ----
# Switches are matched by node GUID (hex, no leading zeros): dump_fts names a switch by its
# NodeDescription, the .net file by its id, and in an ibnetdiscover dump the two differ
# ("S-0002c90300000017" vs "lf07.rack3"), so a name match would find no entry at all.
# dump_fts text -> "guid lid port" lines (sorted).
flat() { awk '/^Unicast lids/ { g=$0; sub(/.* guid 0x/, "", g); sub(/[^0-9a-fA-F].*/, "", g); sub(/^0+/, "", g); g=tolower(g); next }
              /^0x[0-9a-fA-F]+ [0-9]+/ { printf "%s %s %d\n", g, $1, $2 }' "$1" | sort; }
# dump_fts text -> "guid description" of every switch.
switch_names() { awk '/^Unicast lids/ { g=$0; sub(/.* guid 0x/, "", g); d=g; sub(/[^0-9a-fA-F].*/, "", g); sub(/^0+/, "", g)
                       sub(/^[0-9a-fA-F]+ \(/, "", d); sub(/\):?$/, "", d); print tolower(g), d }' "$1"; }
# GUID of the switch named $2 (its id, or else its NodeDescription) in ibnetdiscover output $1.
switch_guid() {
  awk -v n="$2" '/^switchguid=/ { g=$0; sub(/^switchguid=0x/, "", g); sub(/[^0-9a-fA-F].*/, "", g); next }
       /^Switch[ \t]/ { id=""; d=""; if (match($0, /"[^"]+"/)) { id=substr($0, RSTART+1, RLENGTH-2); rest=substr($0, RSTART+RLENGTH) }
                        if (match(rest, /# "[^"]*"/)) d=substr(rest, RSTART+3, RLENGTH-4)
                        if (id == n) exact=g; else if (d == n && bydesc == "") bydesc=g }
       END { g = (exact != "") ? exact : bydesc; sub(/^0+/, "", g); print tolower(g) }' "$1"
}
# Entries of switch GUID $2 that use port $3.
uses_port() { flat "$1" | awk -v g="$2" -v p="$3" '$1==g && $3==p' | wc -l; }
# VLs the ftroute engine reported in its last "ftroute: ENGINE routed ... (VLs N," log line (0: none).
logged_vls() {
  grep -o "ftroute: $ENGINE routed .*(VLs [0-9]*," "$LOG" 2>/dev/null | tail -1 | sed 's/.*(VLs \([0-9]*\),/\1/' || true
}
# Multi-VL only: path SLs from OpenSM's SA and its SL2VL tables -> SLARGS for `ftroute check`.
# $1 = ibnetdiscover file, $2 = suffix (before/after). With the plugin: its dump of the last sweep
# (written right after SUBNET UP; the file's end line must count no pair without an SL). Without:
# like `ftroute campaign` (campaign/opensm.cpp), one PathRecord per (CA port -> other CA port or
# switch) pair; "slid dlid sl" answers become the ibdmchk -c file "src_node_guid dlid sl" (source
# node by LID); a pair without answer is an error.
path_sls() {
  local nd=$1 sfx=$2 dump n missing ups end
  if [ -n "$SLDUMP" ]; then
    ups=$(grep -c 'SUBNET UP' "$LOG" || true)
    for _ in $(seq 1200); do
      [ "$(grep -c 'ftroute: path SLs of engine' "$LOG" || true)" -ge "$ups" ] && break
      grep -q 'ERR FT05: ftroute: path-SL dump' "$LOG" && break
      sleep 0.1
    done
    [ -s "$SLDUMP" ] || fail "the plugin wrote no path-SL dump $SLDUMP (log $LOG: $(grep -o 'ERR FT05.*' "$LOG" | tail -1))"
    end=$(tail -1 "$SLDUMP")
    [[ "$end" =~ ^"# end: "[0-9]+" pairs, 0 without path parameters, 0 with" ]] ||
      fail "path-SL dump incomplete: ${end:0:200} ($SLDUMP)"
    cp "$SLDUMP" "$W/path_sl.$sfx.txt"
  else
    awk '/^Switch/ { ca=0; if (match($0, /"S-[0-9a-fA-F]+"/)) print "S", "0x" substr($0, RSTART+3, RLENGTH-4); next }
         /^(Ca|Hca)[ \t]/ { ca=0; if (match($0, /"H-[0-9a-fA-F]+"/)) { ca=1; node="0x" substr($0, RSTART+3, RLENGTH-4) }; next }
         /^$/ { ca=0; next }
         ca && /^\[[0-9]+\]\(/ && match($0, /# lid [0-9]+/) { lid=substr($0, RSTART+6, RLENGTH-6);
           g=substr($0, index($0, "(")+1); g=substr(g, 1, index(g, ")")-1); print "C", node, "0x" g, lid }' "$nd" > "$W/endports.$sfx.txt"
    awk '$1=="C" { src[++ns]=$3; dst[++nd]=$3 } $1=="S" { dst[++nd]=$2 }
         END { for (i=1;i<=ns;i++) for (j=1;j<=nd;j++) if (src[i]!=dst[j]) print src[i], dst[j] }' \
      "$W/endports.$sfx.txt" > "$W/pairs.$sfx.txt"
    FTSIM tool "$PATHSL" < "$W/pairs.$sfx.txt" > "$W/pathsl.$sfx.out" 2>> "$W/tools.log" ||
      fail "ftroute-pathsl failed (log $W/tools.log)"
    missing=$(grep -c '^-' "$W/pathsl.$sfx.out" || true)
    [ "$missing" -eq 0 ] || fail "$missing of $(wc -l < "$W/pairs.$sfx.txt") path records missing from the SA ($W/pathsl.$sfx.out)"
    awk 'NR==FNR { if ($1=="C") node[$4]=$2; next }
         NF==3 { if (!($1 in node)) { print "no CA with LID " $1 > "/dev/stderr"; exit 1 } print node[$1], $2, $3 }' \
      "$W/endports.$sfx.txt" "$W/pathsl.$sfx.out" > "$W/path_sl.$sfx.txt" || fail "cannot map the SA's path SLs to CAs"
  fi
  dump=$(FTSIM dumpdir)/opensm-sl2vl.dump
  for _ in $(seq 50); do [ -s "$dump" ] && break; sleep 0.1; done
  [ -s "$dump" ] || fail "OpenSM wrote no $dump (is qos on?)"
  cp "$dump" "$W/sl2vl.$sfx.dump"
  n=$(grep -vc '^#' "$W/path_sl.$sfx.txt")
  echo "    per-VL check: SLs from OpenSM's SA ${SLDUMP:+(plugin dump) }($n paths, SL $(awk '!/^#/ && (n++==0||$3<m){m=$3} END{print m+0}' "$W/path_sl.$sfx.txt")..$(awk '!/^#/ && $3>m{m=$3} END{print m+0}' "$W/path_sl.$sfx.txt")), SL2VL from opensm-sl2vl.dump"
  SLARGS=(--sl "$W/path_sl.$sfx.txt" --sl2vl "$W/sl2vl.$sfx.dump")
}
SLARGS=()
check() {  # $1 = label, $2 = ibnetdiscover file, $3 = dump_fts file
  local out rc=0
  out=$("$FTROUTE" check --fabric "$2" --lfts "$3" --format dump_fts "${SLARGS[@]+"${SLARGS[@]}"}" 2>&1) || rc=$?
  echo "$out" | sed 's/^/    /'
  [ $rc -eq 0 ] || fail "ftroute check rejected the $1 LFTs (exit $rc)"
}

step "start ibsim on $(basename "$NET")"
FTSIM start "$NET" 2>&1 | sed 's/^ftsim: /    /'
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "ibsim did not start"
NSW=$(grep -c '^Switch' "$NET"); NCA=$(grep -cE '^(Hca|Ca)[[:space:]]' "$NET")
echo "    $NSW switches, $NCA HCAs"

[ "$QOS" = 0 ] || [ -n "$SLDUMP" ] || [ -x "$PATHSL" ] || fail "$PATHSL is not built (needs libibmad-dev): the per-VL check of $ENGINE needs it (or --no-qos)"
step "OpenSM routes the fabric (engine $ENGINE${PLUGIN_OPTS_USED:+, plugin $PLUGIN_SO}$([ "$QOS" = 0 ] || echo ", qos TRUE"))"
[ "$QOS" = 0 ] || OSM_OPTS+=(--conf 'qos TRUE')
USED=$(FTSIM opensm-start "${OSM_OPTS[@]}" --timeout 120)
LOG=$(FTSIM log)
if [ "$QOS" = 0 ] && [ -n "${QOS_AUTO:-}" ] && [ "$(logged_vls)" -gt 1 ] 2>/dev/null; then
  echo "    $ENGINE uses $(logged_vls) VLs: restarting OpenSM with qos TRUE for the per-VL check"
  QOS=1; OSM_OPTS+=(--conf 'qos TRUE')
  [ -n "$SLDUMP" ] || [ -x "$PATHSL" ] || fail "$PATHSL is not built (needs libibmad-dev): the per-VL check of $ENGINE needs it (or --no-qos)"
  USED=$(FTSIM opensm-start "${OSM_OPTS[@]}" --timeout 120)
  LOG=$(FTSIM log)
fi
grep -h 'ftroute' "$LOG" | grep -v '^$' | tail -3 | sed 's/^/    log: /' || true
echo "    engine used: $USED"
[ "$USED" = "$ENGINE" ] || { grep -E 'ERR|cannot|fail' "$LOG" | tail -5 >&2; fail "OpenSM used '$USED', not '$ENGINE' (log $LOG)"; }

step "read back the LFTs from the simulated switches and validate"
FTSIM ibnetdiscover > "$W/ibnetdiscover.before.txt" 2>> "$W/tools.log"
FTSIM dump-fts > "$W/lfts.before.txt" 2>> "$W/tools.log"
echo "    $(grep -c '^Unicast lids' "$W/lfts.before.txt") switch LFTs, $(flat "$W/lfts.before.txt" | wc -l) entries"
[ "$QOS" = 0 ] || path_sls "$W/ibnetdiscover.before.txt" before
check "initial" "$W/ibnetdiscover.before.txt" "$W/lfts.before.txt"
FGUID=$(switch_guid "$W/ibnetdiscover.before.txt" "$FNODE"); PGUID=$(switch_guid "$W/ibnetdiscover.before.txt" "$PNODE")
[ -n "$FGUID" ] && [ -n "$PGUID" ] || fail "switch \"$FNODE\" or \"$PNODE\" not found in the fabric read back ($W/ibnetdiscover.before.txt)"
BEFORE_USE=$(( $(uses_port "$W/lfts.before.txt" "$FGUID" "$FPORT") + $(uses_port "$W/lfts.before.txt" "$PGUID" "$PPORT") ))
echo "    link \"$FNODE\"[$FPORT] <-> \"$PNODE\"[$PPORT] carries $BEFORE_USE LFT entries"

step "inject a link fault: Unlink \"$FNODE\"[$FPORT]"
ts=$(date +%s.%N)
FTSIM unlink "$FNODE" "$FPORT" > /dev/null
FTSIM wait-reroute 60 > /dev/null
te=$(date +%s.%N)
USED2=$(FTSIM engine)
echo "    re-routed by $USED2 in $(awk -v a="$ts" -v b="$te" 'BEGIN{printf "%.2f", b-a}') s (incl. 0.5 s settle)"
if [ "$USED2" != "$ENGINE" ]; then
  # An ftroute engine must survive the fault; a built-in one may give up (OpenSM's ftree does on
  # any asymmetric fault - the gap ftroute's engines close), which is reported, not fatal.
  [ -z "$PLUGIN_OPTS_USED" ] || fail "after the fault OpenSM used '$USED2', not '$ENGINE' (log $LOG)"
  echo "    NOTE: OpenSM's $ENGINE could not route the faulty fabric; OpenSM fell back to $USED2"
fi

step "read back + validate again"
FTSIM ibnetdiscover > "$W/ibnetdiscover.after.txt" 2>> "$W/tools.log"
FTSIM dump-fts > "$W/lfts.after.txt" 2>> "$W/tools.log"
if [ "$QOS" = 1 ]; then
  path_sls "$W/ibnetdiscover.after.txt" after
elif [ -n "${QOS_AUTO:-}" ] && [ "$(logged_vls)" -gt 1 ] 2>/dev/null; then
  fail "after the fault $ENGINE uses $(logged_vls) VLs but OpenSM runs without qos: run the demo with --qos"
fi
check "re-routed" "$W/ibnetdiscover.after.txt" "$W/lfts.after.txt"
DEAD=$(( $(uses_port "$W/lfts.after.txt" "$FGUID" "$FPORT") + $(uses_port "$W/lfts.after.txt" "$PGUID" "$PPORT") ))
diff <(flat "$W/lfts.before.txt") <(flat "$W/lfts.after.txt") > "$W/lfts.diff" || true
CHANGED=$(grep -c '^>' "$W/lfts.diff" || true)
echo "    $CHANGED LFT entries changed (first ones: old -> new):"
switch_names "$W/lfts.before.txt" > "$W/switch_names.txt"
join <(flat "$W/lfts.before.txt" | awk '{print $1":"$2, $3}' | sort) \
     <(flat "$W/lfts.after.txt" | awk '{print $1":"$2, $3}' | sort) | awk '$2!=$3' | sed -n 1,8p |
  awk 'NR==FNR { name[$1]=substr($0, length($1) + 2); next }
       { split($1,a,":"); printf "      switch %-10s lid %-5s port %s -> %s\n", (a[1] in name) ? name[a[1]] : a[1], a[2], $2, $3 }' \
      "$W/switch_names.txt" - || true
echo "    entries still using the dead link: $DEAD"
[ "$DEAD" -eq 0 ] || fail "$DEAD LFT entries still use the dead link"

step "report"
[ "$QOS" = 0 ] || VALID_NOTE=" (per VL: SLs from OpenSM's SA, opensm-sl2vl.dump)"
cat <<EOF | tee "$W/report.txt"
    fabric        $NET_GIVEN ($NSW switches, $NCA HCAs)
    engine        $ENGINE (OpenSM used: $USED, after the fault: $USED2)
    fault         Unlink "$FNODE"[$FPORT] (peer "$PNODE"[$PPORT]), carried $BEFORE_USE entries before
    LFT changes   $CHANGED entries, dead link now carries $DEAD
    validation    ftroute check passed before and after the fault${VALID_NOTE:-}
    files         $W (lfts.before.txt, lfts.after.txt, lfts.diff, ibnetdiscover.*.txt, opensm-1/osm.log)
EOF
step "stop everything"
FTSIM stop
trap - EXIT
echo "demo: OK ($((SECONDS - t0)) s)"
