#!/usr/bin/env bash
# The installed ftroute works on its own (docs/INSTALL.md):
#  * an install prefix that cannot be written fails before anything is copied;
#  * `cmake --install --strip` to a temporary prefix, then the prefix is MOVED (relocatable: helpers
#    are found next to /proc/self/exe), the build tree is not on PATH, and no source or build path
#    is in the installed binaries;
#  * from the install: `ftroute --version`, `route` + `check` on a shipped fabric, and a campaign
#    with `opensm:minhop` and `opensm:ftree-misroute` in which OpenSM (under ibsim, the installed
#    libexec/ftroute/ftsim.sh) loads the INSTALLED libftroute.so (its LD_LIBRARY_PATH and load line);
#  * man pages render (ftroute(1) lists one command per line, ftroute-pathsl(1), the plugin's
#    ftroute-plugin(8) with its FT error codes), the docs are in share/doc/ftroute, bash completion
#    completes a subcommand and an option;
#  * CPack (the project's CPackConfig over a DESTDIR install) builds ftroute_<version>_<arch>.deb
#    whose Depends name what an SM host needs and not the simulator (ibsim-utils, libumad2sim0
#    are Recommends), with no made-up Homepage, the docs and all man pages inside, and whose
#    plugin sits in /usr/lib/<multiarch>.
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
B=$(cd "$1" && pwd); S=$(cd "$2" && pwd); D=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$D"; mkdir -p "$D"; cd "$D"

# 1. unwritable prefix: nothing copied
mkdir -p ro && chmod 555 ro
if [ "$(id -u)" -eq 0 ]; then as_user=(runuser -u nobody --); else as_user=(); fi
if "${as_user[@]}" cmake --install "$B" --prefix "$D/ro/usr" > ro.out 2>&1; then cat ro.out; fail "install into a read-only prefix succeeded"; fi
tr -s ' \n' ' ' < ro.out > ro.flat   # CMake wraps long messages
grep -q 'is not writable' ro.flat || { cat ro.out; fail "no 'not writable' message"; }
grep -q 'Installing:' ro.out && { cat ro.out; fail "files were copied before the prefix check"; }
[ -z "$(ls -A ro)" ] || fail "read-only prefix got content"
echo "ok: read-only prefix refused: $(grep -o 'ftroute: install prefix .* nothing was installed' ro.flat)"

# 2. install, move, no build paths inside
cmake --install "$B" --prefix "$D/stage/usr" --strip > install.out 2>&1 || { cat install.out; fail "cmake --install"; }
mv stage moved
P=$D/moved/usr
DOCS=(README.md docs/PLUGIN.md docs/INSTALL.md docs/REFERENCES.md docs/ftree-misroute.md docs/dqr.md docs/kns.md
      docs/ftdrb.md docs/specs/fattree_fip_dqr.md)
for f in bin/ftroute bin/ftroute-pathsl lib/*/libftroute.so libexec/ftroute/ftsim.sh share/ftroute/opensm.conf.example \
         share/ftroute/nets/4ary3tree.net share/bash-completion/completions/ftroute \
         share/man/man1/ftroute-pathsl.1 share/man/man8/ftroute-plugin.8 share/man/man8/libftroute.8 \
         "${DOCS[@]/#/share/doc/ftroute/}"; do
  compgen -G "$P/$f" > /dev/null || fail "not installed: $f"
done
for f in "$P"/bin/ftroute "$P"/bin/ftroute-pathsl "$P"/lib/*/libftroute.so; do
  if strings "$f" | grep -F -e "$S" -e "$B" > paths.txt; then cat paths.txt; fail "$f contains a source/build path"; fi
done
echo "ok: installed $(find "$P" -type f | wc -l) files, relocated, no source/build path in the binaries"

# 3. run from the install only
run() { env -i HOME="$D" PATH="$P/bin:/usr/sbin:/usr/bin:/sbin:/bin" "$@"; }
[ "$(run bash -c 'command -v ftroute')" = "$P/bin/ftroute" ] || fail "ftroute on PATH is not the installed one"
ver=$(run ftroute --version)
[[ $ver =~ ^ftroute\ [0-9]+\.[0-9]+\.[0-9]+\ \( ]] || fail "--version: '$ver'"
NET=$P/share/ftroute/nets/4ary3tree.net
run ftroute route -q -e ftree-misroute "$NET" -o lfts.dump
run ftroute check -f "$NET" -l lfts.dump > check.out || { cat check.out; fail "check of the installed route"; }
grep -q 'RESULT: PASS' check.out || fail "check: no PASS"
echo "ok: $ver; route + check on the shipped 4ary3tree.net: PASS"

run ftroute campaign --gen fattree:4,2 --engines opensm:minhop,opensm:ftree-misroute --link-failures 0,1 --seeds 1 \
    -j 1 -q --keep-scratch --opensm-timeout 60 --out camp > camp.out 2>&1 || { cat camp.out; fail "campaign"; }
python3 - camp/results.csv <<'PY' || fail "campaign results"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 4, rows
for r in rows:
    want = r["engine"].split(":", 1)[1]
    assert r["status"] == "ok" and r["engine_used"] == want and r["fallback"] == "0", r
print("ok: campaign rows:", ", ".join(r["engine"] + "/" + r["link_failures"] + "=" + r["engine_used"] for r in rows))
PY
envs=$(grep -l 'routing_engine ftree-misroute' camp/scratch/*/opensm-*/opensm.conf | sed 's/opensm.conf$/opensm.env/')
[ -n "$envs" ] || fail "no OpenSM run of ftree-misroute in the scratch dirs"
for e in $envs; do
  grep -qx "LD_LIBRARY_PATH=$P/lib/[^:]*" <(grep LD_LIBRARY_PATH "$e" | cut -d: -f1) || { cat "$e"; fail "OpenSM did not get the installed plugin dir"; }
  log=$(dirname "$e")/osm.log
  grep -q "ftroute: plugin loaded, .*, version ${ver#ftroute }" "$log" || fail "no load line with '$ver' in $log"
done
echo "ok: OpenSM loaded $(grep LD_LIBRARY_PATH $e | cut -d: -f1 | cut -d= -f2)/libftroute.so ($ver)"

# 4. man pages and completion
if command -v help2man > /dev/null; then
  [ -f "$P/share/man/man1/ftroute.1" ] && [ -f "$P/share/man/man1/ftroute-check.1" ] || fail "man pages missing"
  if command -v man > /dev/null; then
    MANWIDTH=80 man -l "$P/share/man/man1/ftroute-check.1" 2> man.err | grep -- '--pairs' > /dev/null || { cat man.err; fail "ftroute-check(1) does not render"; }
    # ftroute(1): every command of `ftroute --help` on a line of its own, its summary beside or
    # below it (help2man joined them into one paragraph before).
    MANWIDTH=200 man -l "$P/share/man/man1/ftroute.1" > man-ftroute.txt 2> man.err || { cat man.err; fail "ftroute(1) does not render"; }
    ncmd=0
    for c in $(run ftroute --help | awk '/^commands:/ { on = 1; next } on && NF { print $1 }'); do
      grep -E "^ +$c( |\$)" man-ftroute.txt > /dev/null || { cat man-ftroute.txt; fail "ftroute(1): command '$c' not on a line of its own"; }
      ncmd=$((ncmd + 1))
    done
    [ "$ncmd" -ge 10 ] || fail "ftroute(1): only $ncmd commands found in ftroute --help"
    MANWIDTH=80 man -l "$P/share/man/man8/ftroute-plugin.8" > man-plugin.txt 2> man.err || { cat man.err; fail "ftroute-plugin(8) does not render"; }
    for w in event_plugin_options routing_engine 'ERR FT00' 'ERR FT01' 'ERR FT02' 'ERR FT03' 'ERR FT04' 'version mismatch'; do
      grep -F -- "$w" man-plugin.txt > /dev/null || fail "ftroute-plugin(8) does not mention '$w'"
    done
    MANWIDTH=80 man -l "$P/share/man/man1/ftroute-pathsl.1" 2> man.err | grep -- 'PathRecord' > /dev/null || { cat man.err; fail "ftroute-pathsl(1) does not render"; }
    echo "ok: man pages ($(ls "$P"/share/man/man1 "$P"/share/man/man8 | wc -l)) render; ftroute(1) lists $ncmd commands one per line"
  fi
fi
comp() {  # comp WORDS... -> completions of the last word
  run bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ftroute; printf "%s\n" "${COMPREPLY[@]}"' _ \
      "$P/share/bash-completion/completions/ftroute" "$@"
}
comp ftroute chec | grep -x check > /dev/null || fail "completion of 'ftroute chec'"
comp ftroute check --pai | grep -x -- --pairs > /dev/null || fail "completion of 'ftroute check --pai'"
echo "ok: bash completion"

# 5. the Debian package
if command -v dpkg-deb > /dev/null; then
  # The project's CPack config, packaging a DESTDIR install instead of letting cpack build the
  # tree ("preinstall" = all) while other tests run its binaries; `cd build && cpack -G DEB`
  # gives the same package.
  DESTDIR="$D/debroot" cmake --install "$B" --prefix /usr --strip > debroot.out 2>&1 || { cat debroot.out; fail "DESTDIR install"; }
  cat > cpack-staged.cmake <<CFG
include("$B/CPackConfig.cmake")
set(CPACK_INSTALL_CMAKE_PROJECTS "")
set(CPACK_INSTALLED_DIRECTORIES "$D/debroot;.")
set(CPACK_PACKAGE_DIRECTORY "$D/pkg")
CFG
  cpack -G DEB --config cpack-staged.cmake > cpack.out 2>&1 || { cat cpack.out; fail "cpack"; }
  deb=$(ls "$D"/pkg/ftroute_*.deb)
  dpkg-deb -f "$deb" > control.txt
  field() { awk -v f="$1:" '$1 == f { sub(/^[^:]*: */, ""); print }' control.txt; }
  field Depends | tee depends.txt
  for p in opensm libopensm9 libibmad5 libibumad3 infiniband-diags; do grep -qw "$p" depends.txt || fail "Depends lacks $p"; done
  # The simulator belongs on a test machine, not on the SM host: not in Depends, but recommended.
  for p in ibsim-utils libumad2sim0 ibutils; do ! grep -qw -- "$p" depends.txt || fail "Depends names $p (simulator/test tool)"; done
  { field Recommends; field Suggests; } > recommends.txt
  for p in ibsim-utils libumad2sim0 ibutils; do grep -qw -- "$p" recommends.txt || { cat control.txt; fail "$p is in neither Recommends nor Suggests"; }; done
  ! grep -q 'example\.invalid' control.txt || { cat control.txt; fail "control file has a made-up URL (example.invalid)"; }
  # A plugin belongs to one OpenSM version: the package version names it, Depends pins it, and the
  # installed opensm satisfies that.
  osmv=$(sed -n 's/.*, plugin built for OpenSM \(.*\)$/\1/p' <<< "$ver")
  if [ -n "$osmv" ]; then
    [[ $(basename "$deb") == ftroute_*+opensm${osmv}_*.deb ]] || fail "$(basename "$deb") does not name OpenSM $osmv"
    grep -F "opensm (>= $osmv), opensm (<< $osmv.~)" depends.txt > /dev/null || fail "Depends does not pin opensm $osmv"
    inst=$(dpkg-query -W -f='${Version}' opensm 2>/dev/null || true)
    if [ -n "$inst" ]; then
      dpkg --compare-versions "$inst" ge "$osmv" && dpkg --compare-versions "$inst" lt "$osmv.~" ||
        fail "the installed opensm $inst does not satisfy the .deb's opensm $osmv"
    fi
    echo "ok: package for OpenSM $osmv (installed opensm ${inst:-none} satisfies it)"
  fi
  echo "ok: Depends without the simulator; Recommends/Suggests: $(tr '\n' ' ' < recommends.txt); Homepage: $(field Homepage | grep . || echo none)"
  # The listing goes to a file first: `dpkg-deb -c | grep -q` under pipefail failed whenever grep
  # quit before dpkg-deb's tar had written everything (SIGPIPE; scripts/check_pipefail.py).
  dpkg-deb -c "$deb" > contents.txt
  multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
  grep -q "./usr/lib/$multiarch/libftroute.so" contents.txt || fail "plugin not in /usr/lib/<multiarch> in the .deb"
  for f in "${DOCS[@]/#/usr/share/doc/ftroute/}" usr/share/man/man1/ftroute.1 usr/share/man/man1/ftroute-pathsl.1 \
           usr/share/man/man8/ftroute-plugin.8 usr/share/man/man8/libftroute.8; do
    grep -F " ./$f" contents.txt > /dev/null || fail "not in the .deb: /$f"
  done
  echo "ok: $(basename "$deb")"
fi
echo "PASS: installed ftroute runs on its own"
