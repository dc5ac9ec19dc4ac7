#!/usr/bin/env bash
# Packaging check (CTest packaging.check_package): validates the desktop file, the AppStream
# metainfo and the MIME type, builds the Debian package with CPack from the build tree, unpacks
# it with dpkg-deb -x into a clean temporary tree (no root, nothing installed on the machine),
# prints the dependencies dpkg-shlibdeps computed, and starts both programs from that tree:
# carbon-cli --help, and carbon-studio --smoke-test on the offscreen Qt platform.
#   check_package.sh BUILD_DIR SOURCE_DIR GUI(ON|OFF)
# Exit 77 (CTest: skipped) with the reason when the GUI is not built or a tool is missing.
set -euo pipefail

BUILD=${1:?build dir}
SRC=${2:?source dir}
GUI=${3:-OFF}
ID=org.carbonstudio.CarbonStudio

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

case "$GUI" in ON|on|1|TRUE|true) ;; *) skip "the GUI is not built (configure with -DCARBON_GUI=ON)" ;; esac
for tool in cpack dpkg-deb dpkg-shlibdeps desktop-file-validate appstreamcli; do
  command -v "$tool" >/dev/null 2>&1 ||
    skip "$tool not found (Debian: dpkg-dev, desktop-file-utils, appstream; bash packaging/setup.sh --deps-only)"
done
# Installed by tests/setup-test-deps.sh: its absence is a set-up bug, not a reason to skip.
command -v file >/dev/null 2>&1 || fail "'file' is not installed: CPack's DEB generator needs it for dpkg-shlibdeps (tests/setup-test-deps.sh installs it)"
[ -f "$BUILD/CPackConfig.cmake" ] || fail "$BUILD/CPackConfig.cmake is missing"
for exe in carbon-cli carbon-studio; do
  [ -x "$BUILD/bin/$exe" ] || fail "$BUILD/bin/$exe is not built"
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/carbon-pkg.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "== desktop-file-validate"
desktop-file-validate "$SRC/packaging/$ID.desktop"
echo "== appstreamcli validate --no-net"
appstreamcli validate --no-net "$SRC/packaging/$ID.metainfo.xml"

echo "== cpack -G DEB"
cpack --config "$BUILD/CPackConfig.cmake" -G DEB -B "$WORK/out" >"$WORK/cpack.log" 2>&1 ||
  { cat "$WORK/cpack.log" >&2; fail "cpack failed"; }
shopt -s nullglob
debs=("$WORK"/out/carbon-studio_*.deb)
[ ${#debs[@]} -eq 1 ] || { cat "$WORK/cpack.log" >&2; fail "expected one carbon-studio_*.deb, found ${#debs[@]}"; }
DEB=${debs[0]}
echo "package: $(basename "$DEB") ($(du -h "$DEB" | cut -f1))"
dpkg-deb --field "$DEB"
DEPENDS=$(dpkg-deb --field "$DEB" Depends)
echo "dependencies computed by dpkg-shlibdeps: $DEPENDS"
[ -n "$DEPENDS" ] || fail "the package has no Depends: dpkg-shlibdeps did not run"
for lib in libqt6widgets6 libsqlite3 libc6; do
  grep -q "$lib" <<<"$DEPENDS" || fail "Depends lacks $lib"
done

echo "== dpkg-deb -x into a clean tree"
ROOT="$WORK/root"
mkdir -p "$ROOT"
dpkg-deb -x "$DEB" "$ROOT"
expected=(usr/bin/carbon-cli usr/bin/carbon-studio usr/share/doc/carbon-studio/copyright
          "usr/share/applications/$ID.desktop" "usr/share/metainfo/$ID.metainfo.xml"
          "usr/share/mime/packages/$ID.xml" "usr/share/icons/hicolor/scalable/apps/$ID.svg"
          usr/share/carbon-studio/sample/sample.fa usr/share/carbon-studio/sample/variants.vcf
          usr/share/carbon-studio/sample/regions.tsv usr/share/carbon-studio/sample/README.md)
for s in 16 22 24 32 48 64 128 256 512; do expected+=("usr/share/icons/hicolor/${s}x${s}/apps/$ID.png"); done
for f in "${expected[@]}"; do [ -f "$ROOT/$f" ] || fail "the package lacks /$f"; done
echo "${#expected[@]} expected files present"
desktop-file-validate "$ROOT/usr/share/applications/$ID.desktop"
appstreamcli validate-tree --no-net "$ROOT" || fail "appstreamcli validate-tree failed on the unpacked package"

if command -v update-mime-database >/dev/null 2>&1; then
  echo "== MIME type"
  mkdir -p "$WORK/mime/packages"
  cp "$ROOT/usr/share/mime/packages/$ID.xml" "$WORK/mime/packages/"
  update-mime-database "$WORK/mime" >/dev/null 2>&1 || fail "update-mime-database rejected the MIME XML"
  grep -q 'application/x-carbon-project:\*\.carbon' "$WORK/mime/globs2" ||
    fail "*.carbon does not map to application/x-carbon-project"
  echo "*.carbon -> application/x-carbon-project"
fi

echo "== the unpacked programs"
for exe in carbon-cli carbon-studio; do
  if ldd "$ROOT/usr/bin/$exe" | grep -q 'not found'; then
    ldd "$ROOT/usr/bin/$exe" >&2; fail "$exe has unresolved libraries"
  fi
done
"$ROOT/usr/bin/carbon-cli" --help >"$WORK/cli-help.txt" 2>&1 || { cat "$WORK/cli-help.txt" >&2; fail "carbon-cli --help failed"; }
head -3 "$WORK/cli-help.txt"
# A real project file as the file manager passes it (%F), made by the unpacked carbon-cli.
printf '>probe check_package\nACGTACGTTATAAT\n' >"$WORK/probe.fa"
"$ROOT/usr/bin/carbon-cli" project import "$WORK/probe.carbon" --fasta "$WORK/probe.fa" >"$WORK/import.txt" 2>&1 ||
  { cat "$WORK/import.txt" >&2; fail "carbon-cli project import failed"; }
export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/home/.config" XDG_RUNTIME_DIR="$WORK" QT_QPA_PLATFORM=offscreen
version=$("$ROOT/usr/bin/carbon-studio" --version 2>&1) || fail "carbon-studio --version failed: $version"
echo "$version" | grep -q '^Carbon Studio [0-9]' || fail "carbon-studio --version printed '$version'"
"$ROOT/usr/bin/carbon-studio" --help 2>&1 | grep -q -- '--smoke-test' || fail "carbon-studio --help does not list its options"
timeout 120 "$ROOT/usr/bin/carbon-studio" --smoke-test "$WORK/probe.carbon" >"$WORK/gui.txt" 2>&1 ||
  { cat "$WORK/gui.txt" >&2; fail "carbon-studio --smoke-test failed"; }
echo "$version; --help lists its options"
echo "carbon-studio --smoke-test: exit 0"
echo "PASS"
