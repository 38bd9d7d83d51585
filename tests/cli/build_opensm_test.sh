#!/usr/bin/env bash
# scripts/build-opensm.sh on bad input and on its skip rule, with small stand-in tarballs (an
# opensm-VERSION/ tree whose autogen.sh/configure/Makefile only copy two files, built with
# --sha256 of that tarball and --no-deps), so no real OpenSM is compiled:
#  * unknown version: exit 2, one line naming the known versions, PREFIX not created;
#  * tarball missing: exit 3 (scripts/test.sh's loud SKIP);
#  * corrupt tarball (sha256 mismatch): exit 1, one line naming step 'verify', PREFIX not created;
#  * failing configure: exit 1, one line naming step 'configure' and its log, PREFIX not created;
#  * success: PREFIX/sbin/opensm and the headers appear at once (staged, then renamed); a second
#    run says "up to date" and runs no step; a PREFIX holding other files is refused untouched.
# usage: build_opensm_test.sh SOURCE_DIR SCRATCH_DIR
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
S=$1 D=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$D"; mkdir -p "$D/tarballs"; cd "$D"
export TMPDIR=$D/tmp; mkdir -p "$TMPDIR"
BO=("$S/scripts/build-opensm.sh" --no-deps --tarball-dir "$D/tarballs")

# stand-in tarball: VERSION, and what its configure does (ok | fail)
mk() {
  local v=$1 how=$2 t=$D/src/opensm-$1
  rm -rf "$D/src"; mkdir -p "$t"
  printf '#!/bin/sh\nexit 0\n' > "$t/autogen.sh"
  if [ "$how" = fail ]; then
    printf '#!/bin/sh\necho "configure: error: libibumad not found" >&2\nexit 1\n' > "$t/configure"
  else
    printf '#!/bin/sh\necho "prefix=${1#--prefix=}" > Makefile.vars\n' > "$t/configure"
  fi
  cat > "$t/Makefile" <<'MK'
include Makefile.vars
all:
	@echo built
install:
	mkdir -p $(DESTDIR)$(prefix)/sbin $(DESTDIR)$(prefix)/include/infiniband/opensm
	printf '#!/bin/sh\n' > $(DESTDIR)$(prefix)/sbin/opensm && chmod +x $(DESTDIR)$(prefix)/sbin/opensm
	touch $(DESTDIR)$(prefix)/include/infiniband/opensm/osm_event_plugin.h
MK
  chmod +x "$t/autogen.sh" "$t/configure"
  tar -czf "$D/tarballs/opensm-$v.tar.gz" -C "$D/src" "opensm-$v"
  sha256sum "$D/tarballs/opensm-$v.tar.gz" | cut -d' ' -f1
}
# run EXPECTED_EXIT ARGS...: stderr into err.txt, stdout into out.txt
run() {
  local want=$1 rc=0; shift
  bash "${BO[@]}" "$@" > out.txt 2> err.txt || rc=$?
  [ "$rc" -eq "$want" ] || { cat out.txt err.txt; fail "build-opensm.sh $*: exit $rc, expected $want"; }
}
one_line() {  # the error is one line naming $1
  [ "$(wc -l < err.txt)" -eq 1 ] || { cat err.txt; fail "expected one error line"; }
  grep -F -- "$1" err.txt > /dev/null || { cat err.txt; fail "error line does not name '$1'"; }
}

run 2 9.9.9 "$D/p"
one_line "unknown version '9.9.9' (known: 3.3.24, master-fa74b98c"
[ ! -e "$D/p" ] || fail "PREFIX created for an unknown version"
echo "ok: unknown version: exit 2, $(cat err.txt)"

run 3 3.3.24 "$D/p"
one_line "tarball missing: $D/tarballs/opensm-3.3.24.tar.gz"
echo "ok: missing tarball: exit 3"

head -c 4096 /dev/urandom > "$D/tarballs/opensm-3.3.24.tar.gz"
run 1 3.3.24 "$D/p"
one_line "step 'verify' failed for OpenSM 3.3.24: sha256 "
[ ! -e "$D/p" ] || fail "PREFIX created from a corrupt tarball"
echo "ok: corrupt tarball: $(cat err.txt)"

sha=$(mk 7.7.7 fail)
run 1 --sha256 "$sha" 7.7.7 "$D/p"
one_line "step 'configure' failed for OpenSM 7.7.7"
log=$(sed -n "s/.*(log: \([^;]*\);.*/\1/p" err.txt)
grep -q 'libibumad not found' "$log" || fail "the named log $log does not hold configure's error"
[ ! -e "$D/p" ] || fail "PREFIX created although configure failed"
echo "ok: failed configure: exit 1, log $log names the cause"

sha=$(mk 7.7.8 ok)
rm -rf "${TMPDIR:?}"/*   # the failed runs above keep their logs there, by design
run 0 --sha256 "$sha" 7.7.8 "$D/p"
[ -x "$D/p/sbin/opensm" ] && [ -f "$D/p/include/infiniband/opensm/osm_event_plugin.h" ] || fail "nothing installed"
grep -qx "version 7.7.8 sha256 $sha" "$D/p/.ftroute-opensm-build" || fail "no build stamp"
[ -z "$(ls "$TMPDIR")" ] || fail "work directory left behind after a good build: $(ls "$TMPDIR")"
run 0 --sha256 "$sha" 7.7.8 "$D/p"
grep -q 'already holds OpenSM 7.7.8 (up to date)' out.txt || { cat out.txt; fail "second run did not skip"; }
[ -z "$(ls "$TMPDIR")" ] || fail "the skipping run started a build"
echo "ok: built into PREFIX, second run: $(cat out.txt)"

mkdir -p "$D/other"; echo keep > "$D/other/file"
run 1 --sha256 "$sha" 7.7.8 "$D/other"
one_line "is not a build of this script"
[ "$(ls -A "$D/other")" = file ] || fail "a foreign PREFIX was changed"
echo "ok: foreign PREFIX refused untouched"
echo "PASS: build-opensm.sh"
