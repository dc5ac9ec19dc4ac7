#!/usr/bin/env bash
# The README's first command on a bare Debian 12 root (CTest packaging.bare_root, label
# bare-root): debootstrap a minbase bookworm into a folder this test owns, from the Debian mirror
# this machine's own apt uses (read from its apt sources now, never a fixed host), copy this
# checkout's files into it (git ls-files: what a clone has, no build tree), and run the README's
# first command in a chroot up to the main job's output. Nothing is installed in the root by
# hand: if packaging/setup.sh misses a package the build or the main job fails, and so does this.
#   bare_root.sh SOURCE_DIR WORK_DIR
# With CARBON_BARE_ROOT_TESTS=1 it then runs the README's second command (the whole test suite)
# in the same root and reports its time and what it downloaded (not in CI: about half an hour).
# The chroot gets its own /proc and a private /dev (a tmpfs with its own device nodes): never the
# host's /dev, so nothing run inside can replace a device of the host. A minbase tarball is kept
# in WORK_DIR and unpacked afresh for every run. Exit 77 (CTest: skipped) with the reason where
# debootstrap or chroot cannot run (not root, no debootstrap, no mirror in the apt sources).
set -euo pipefail

SRC=$(cd "${1:?source dir}" && pwd)
WORK=${2:?work dir}
SUITE=${CARBON_BARE_ROOT_SUITE:-bookworm}
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -z "${CARBON_INSIDE_BARE_ROOT:-}" ] || skip "already inside a bare-root check (no nested chroot)"
[ "$(id -u)" = 0 ] || skip "needs root for debootstrap, mount and chroot (running as $(id -un))"
command -v debootstrap >/dev/null 2>&1 || skip "debootstrap is not installed (Debian: debootstrap; tests/setup-test-deps.sh installs it)"
command -v git >/dev/null 2>&1 || skip "git is needed to list the checkout's files"

# The mirror this machine's apt uses: the first non-security URIs: of a deb822 .sources file,
# else the first 'deb' line of sources.list.
mirror=""
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  mirror=$(awk '/^URIs:/ { for (i = 2; i <= NF; ++i) if ($i !~ /security/) { print $i; exit } }' "$f")
  [ -n "$mirror" ] && break
done
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
  mirror=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; ++i) if ($i ~ /:\/\//) { print $i; exit } }' /etc/apt/sources.list)
fi
[ -n "$mirror" ] || skip "no Debian mirror found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"

# The README's two commands: its first two indented lines.
readme_cmd=$(awk '/^    [^ ]/ { sub(/^    /, ""); print; exit }' "$SRC/README.md")
readme_test_cmd=$(awk '/^    [^ ]/ { if (++n == 2) { sub(/^    /, ""); print; exit } }' "$SRC/README.md")
[ -n "$readme_cmd" ] || fail "no indented command found in $SRC/README.md"
echo "== README's first command: $readme_cmd"
echo "== mirror $mirror, suite $SUITE"

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
ROOT="$WORK/root"
TARBALL="$WORK/minbase-$SUITE.tar"
LOG="$WORK/setup.log"

cleanup() {
  for m in "$ROOT/dev" "$ROOT/proc"; do
    if mountpoint -q "$m" 2>/dev/null; then umount "$m" || umount -l "$m" || true; fi
  done
  if [ -d "$ROOT" ] && ! grep -q " $ROOT/" /proc/mounts; then rm -rf --one-file-system "$ROOT"; fi
}
trap cleanup EXIT
cleanup

start=$(date +%s)
if [ ! -s "$TARBALL" ] || [ "$(cat "$TARBALL.mirror" 2>/dev/null)" != "$mirror" ]; then
  echo "== debootstrap --variant=minbase $SUITE (kept as $TARBALL for later runs)"
  rm -rf "$WORK/boot"
  debootstrap --variant=minbase "$SUITE" "$WORK/boot" "$mirror" >"$WORK/debootstrap.log" 2>&1 ||
    { tail -n 30 "$WORK/debootstrap.log" >&2; rm -rf --one-file-system "$WORK/boot"; skip "debootstrap failed here (log above): cannot build a bare root on this machine"; }
  tar -C "$WORK/boot" -cf "$TARBALL.tmp" . && mv "$TARBALL.tmp" "$TARBALL"
  echo "$mirror" >"$TARBALL.mirror"
  rm -rf --one-file-system "$WORK/boot"
fi
mkdir -p "$ROOT"
tar -C "$ROOT" -xf "$TARBALL"
echo "== bare root ready in $(( $(date +%s) - start )) s: $(du -sh "$ROOT" | cut -f1), $(chroot "$ROOT" dpkg-query -W | wc -l) packages"

# What a fresh machine of this kind has besides the base system: its apt sources and settings,
# name resolution, its network's certificate authorities and pip settings (machines here reach
# PyPI through a proxy whose CA they trust), and the environment variables that point at them.
# No package.
rm -f "$ROOT"/etc/apt/sources.list
cp /etc/apt/sources.list "$ROOT/etc/apt/" 2>/dev/null || true
cp /etc/apt/sources.list.d/*.sources "$ROOT/etc/apt/sources.list.d/" 2>/dev/null || true
cp /etc/apt/apt.conf.d/99* "$ROOT/etc/apt/apt.conf.d/" 2>/dev/null || true
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
cp /etc/pip.conf "$ROOT/etc/" 2>/dev/null || true
mkdir -p "$ROOT/usr/local/share/ca-certificates" "$ROOT/etc/ssl/certs"
cp /usr/local/share/ca-certificates/* "$ROOT/usr/local/share/ca-certificates/" 2>/dev/null || true
cp -L /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/" 2>/dev/null || true
machine_env=()
while IFS= read -r kv; do machine_env+=("$kv"); done < <(env | grep -E '^(PIP_[A-Z_]+|SSL_CERT_(FILE|DIR)|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY)=' || true)

# A private /dev and /proc.
mount -t proc proc "$ROOT/proc"
mount -t tmpfs -o mode=755,size=16m devtmp "$ROOT/dev"
for node in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
  set -- $node
  mknod -m 666 "$ROOT/dev/$1" c "$2" "$3"
done
ln -s /proc/self/fd "$ROOT/dev/fd"
ln -s /proc/self/fd/0 "$ROOT/dev/stdin"
ln -s /proc/self/fd/1 "$ROOT/dev/stdout"
ln -s /proc/self/fd/2 "$ROOT/dev/stderr"
mkdir -m 1777 "$ROOT/dev/shm"

# The checkout as a clone has it (tracked and untracked-but-not-ignored files; no build tree).
mkdir -p "$ROOT/root/carbon-studio"
git -C "$SRC" ls-files -z --cached --others --exclude-standard |
  (cd "$SRC" && xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
  tar -C "$SRC" --null -T - -cf - | tar -C "$ROOT/root/carbon-studio" -xf -

echo "== chroot: cd carbon-studio && $readme_cmd   (log: $LOG)"
t0=$(date +%s)
set +e
chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive CARBON_INSIDE_BARE_ROOT=1 "${machine_env[@]}" \
  bash -c "cd /root/carbon-studio && $readme_cmd" >"$LOG" 2>&1
rc=$?
set -e
secs=$(( $(date +%s) - t0 ))
installed=$(chroot "$ROOT" dpkg-query -W | wc -l)
tail -n 40 "$LOG"
echo "== exit status $rc after $secs s; $installed packages in the root afterwards"
[ "$rc" = 0 ] || fail "the README's first command failed in a bare $SUITE root (exit $rc; whole log: $LOG)"
# The main job's output: the designs printed, the project listed, the closing line.
grep -q '^>design_1 ' "$LOG" || fail "the main job printed no designs (log: $LOG)"
grep -q 'TATAAA' "$LOG" || fail "the designs lack the pinned TATA box (log: $LOG)"
grep -q 'no display: start the desktop application' "$LOG" || fail "the main job did not reach its end (log: $LOG)"
[ -x "$ROOT/root/carbon-studio/build/bin/carbon-studio" ] || fail "carbon-studio was not built in the bare root"
echo "PASS: the README's first command set up, built and ran the main job in a bare $SUITE root in $secs s"

if [ "${CARBON_BARE_ROOT_TESTS:-0}" = 1 ]; then
  [ -n "$readme_test_cmd" ] || fail "no second indented command (the test command) in $SRC/README.md"
  echo "== chroot: cd carbon-studio && $readme_test_cmd   (log: $WORK/tests.log)"
  t0=$(date +%s)
  rx0=$(awk '/:/ && $1 != "lo:" { rx += $2 } END { printf "%.0f\n", rx }' /proc/net/dev)
  set +e
  chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive CARBON_INSIDE_BARE_ROOT=1 "${machine_env[@]}" \
    bash -c "cd /root/carbon-studio && $readme_test_cmd" >"$WORK/tests.log" 2>&1
  rc=$?
  set -e
  secs=$(( $(date +%s) - t0 ))
  rx=$(( $(awk '/:/ && $1 != "lo:" { rx += $2 } END { printf "%.0f\n", rx }' /proc/net/dev) - rx0 ))
  tail -n 25 "$WORK/tests.log"
  echo "== the test command: exit status $rc after $secs s; about $(( rx / 1000000 )) MB received by this machine meanwhile"
  [ "$rc" = 0 ] || fail "the README's test command failed in the bare root (log: $WORK/tests.log)"
  echo "PASS: the README's test command passed in a bare $SUITE root in $secs s"
fi
