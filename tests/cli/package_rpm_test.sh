#!/usr/bin/env bash
# The RPM and the relocatable tarball of a build (docs/INSTALL.md, "RHEL/Rocky/Alma 8-9"), made
# with the project's CPack config from a DESTDIR install (as install_test.sh does for the .deb, so
# cpack does not rebuild the tree), checked with rpm's own queries:
#  * the version names the OpenSM the plugin is built for (0.1.0+opensm3.3.24);
#  * `rpm -qpl`: the plugin in /usr/lib64 (RHEL's %{_libdir}, where OpenSM's dlopen finds it),
#    the command, ftroute-pathsl, ftsim.sh, the man pages, bash completion and the docs; no
#    directory the system owns (/usr, /usr/bin, /usr/lib64, /usr/share/man/man1, ...);
#  * `rpm -qpR`: the matching OpenSM (`opensm = X`), opensm-libs, infiniband-diags; not the simulator;
#  * `rpm -qp --scripts`: no scriptlets;
#  * `cpack -G TGZ`: the relocatable tree (bin/ftroute, lib64/libftroute.so, share/...).
# Needs the targets ftroute, ftroute-pathsl, ftroute_plugin (and ftroute_man with help2man) built,
# and a build configured with -DFTROUTE_PLUGIN_INSTALL_DIR=lib64 (scripts/test.sh's OpenSM 3.3.24
# build); otherwise exit 77 (skipped) with the reason.
# usage: package_rpm_test.sh BUILD_DIR SCRATCH_DIR OPENSM_VERSION PLUGIN_INSTALL_DIR
set -Eeuo pipefail
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "${0##*/}: line $LINENO: \`$BASH_COMMAND\` failed (exit $rc)" >&2' ERR
B=$1 D=$2 OSMV=$3 PDIR=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
command -v rpmbuild > /dev/null || skip "rpmbuild not installed (Debian package rpm; scripts/install-deps.sh --build-only)"
[ -n "$OSMV" ] || skip "this build has no plugin (no OpenSM headers)"
[ "$PDIR" = lib64 ] || skip "the plugin installs to $PDIR; the RPM is built with -DFTROUTE_PLUGIN_INSTALL_DIR=lib64 (RHEL's libdir)"
rm -rf "$D"; mkdir -p "$D"; cd "$D"

DESTDIR="$D/rpmroot" cmake --install "$B" --prefix /usr --strip > install.out 2>&1 || { cat install.out; fail "DESTDIR install"; }
cat > cpack-staged.cmake <<CFG
include("$B/CPackConfig.cmake")
set(CPACK_INSTALL_CMAKE_PROJECTS "")
set(CPACK_INSTALLED_DIRECTORIES "$D/rpmroot;.")
set(CPACK_PACKAGE_DIRECTORY "$D/pkg")
CFG
cpack -G RPM --config cpack-staged.cmake > cpack.out 2>&1 || { cat cpack.out; fail "cpack -G RPM"; }
rpm=$(ls "$D"/pkg/ftroute-*.rpm)
echo "ok: $(basename "$rpm")"
ver=$(rpm -qp --queryformat '%{VERSION}' "$rpm" 2>/dev/null)
[ "$ver" = "$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$B/CPackConfig.cmake")" ] || fail "RPM version '$ver'"
[[ $ver == *+opensm$OSMV ]] || fail "RPM version '$ver' does not name OpenSM $OSMV"
echo "ok: version $ver"

rpm -qpl "$rpm" > files.txt 2>/dev/null
has() { grep -E -x -- "$1" files.txt > /dev/null || { cat files.txt; fail "not in the RPM: $1"; }; }
has /usr/lib64/libftroute.so
has /usr/bin/ftroute
has /usr/bin/ftroute-pathsl
has /usr/libexec/ftroute/ftsim.sh
has '/usr/share/man/man8/ftroute-plugin\.8(\.gz)?'
has '/usr/share/man/man1/ftroute-pathsl\.1(\.gz)?'
if command -v help2man > /dev/null; then has '/usr/share/man/man1/ftroute\.1(\.gz)?'; fi
has /usr/share/bash-completion/completions/ftroute
has /usr/share/doc/ftroute/README.md
has /usr/share/doc/ftroute/docs/INSTALL.md
has /usr/share/doc/ftroute/docs/PLUGIN.md
has /usr/share/ftroute/opensm.conf.example
for d in /usr /usr/bin /usr/lib64 /usr/libexec /usr/share /usr/share/man /usr/share/man/man1 /usr/share/man/man8 \
         /usr/share/doc /usr/share/bash-completion /usr/share/bash-completion/completions; do
  ! grep -x -- "$d" files.txt > /dev/null || fail "the RPM owns the system directory $d"
done
echo "ok: rpm -qpl: $(wc -l < files.txt) paths, plugin in /usr/lib64, command, man pages, completion, docs"

rpm -qpR "$rpm" > requires.txt 2>/dev/null
grep -x "opensm = $OSMV" requires.txt > /dev/null || { cat requires.txt; fail "Requires lacks 'opensm = $OSMV'"; }
for p in opensm-libs infiniband-diags; do grep -x "$p" requires.txt > /dev/null || { cat requires.txt; fail "Requires lacks $p"; }; done
! grep -E '^(ibsim|ibutils)' requires.txt > /dev/null || fail "Requires names the simulator"
echo "ok: rpm -qpR: opensm = $OSMV, opensm-libs, infiniband-diags (+ $(grep -c 'so' requires.txt) sonames)"

rpm -qp --scripts "$rpm" > scripts.txt 2>/dev/null
[ ! -s scripts.txt ] || { cat scripts.txt; fail "the RPM has scriptlets"; }
echo "ok: rpm -qp --scripts: none"

# the relocatable tarball: the same tree under any prefix
cmake --install "$B" --prefix "$D/reloc" --strip > reloc.out 2>&1 || { cat reloc.out; fail "install for the tarball"; }
cat > cpack-tgz.cmake <<CFG
include("$B/CPackConfig.cmake")
set(CPACK_INSTALL_CMAKE_PROJECTS "")
set(CPACK_INSTALLED_DIRECTORIES "$D/reloc;.")
set(CPACK_PACKAGE_DIRECTORY "$D/pkg")
CFG
cpack -G TGZ --config cpack-tgz.cmake > cpack-tgz.out 2>&1 || { cat cpack-tgz.out; fail "cpack -G TGZ"; }
tgz=$(ls "$D"/pkg/ftroute-*.tar.gz)
[[ $(basename "$tgz") == *opensm$OSMV* ]] || fail "tarball name $(basename "$tgz") does not name OpenSM $OSMV"
tar tzf "$tgz" > tgz.txt
for f in bin/ftroute lib64/libftroute.so libexec/ftroute/ftsim.sh share/doc/ftroute/docs/INSTALL.md; do
  grep -E "^[^/]+/$f\$" tgz.txt > /dev/null || fail "not in the tarball: $f"
done
echo "ok: $(basename "$tgz")"
echo "PASS: RPM and tarball for OpenSM $OSMV"
