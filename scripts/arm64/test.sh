#!/usr/bin/env bash
# Runs the test suites built for aarch64 (scripts/arm64/build.sh --build-tests: the same tests,
# compiled by Debian's Swift 6.2.3) as arm64 code under qemu-user, in an arm64 Debian 13 root of
# the libraries the tests link (scripts/arm64/tests-root.sh: from Debian's registry, in the rigs'
# cache), and sid's arm64 Swift runtime bound into it. The tree is
# bound where the build saw it (/src: the fixtures are found by #filePath). Arguments go to the
# test binary (`--filter REGEX`, several allowed). --prepare makes the root only (CI: beside the
# first build).
#
#   scripts/arm64/test.sh [--prepare] [--no-build] [--filter REGEX ...]
#
# Needs root (chroot, mounts). Prints Swift Testing's output; exits with its status.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=1 prepare=0
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0; shift ;;
    --prepare) prepare=1; shift ;;
    *) break ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "test.sh: needs root (chroot, mounts)" >&2; exit 77; }
dir=.build-arm64
# The tests' root (scripts/arm64/tests-root.sh: in the rigs' cache, made once).
root=$(./scripts/arm64/tests-root.sh | tail -1)
[ "$prepare" = 0 ] || { echo "$root"; exit 0; }

toolchain=$(./scripts/arm64/toolchain.sh | tail -1)
./scripts/arm64/binfmt.sh
products=$dir/build/aarch64-unknown-linux-gnu/debug
if [ "$build" = 1 ]; then
  started=$(date +%s)
  ./scripts/arm64/build.sh --build-tests
  echo "test.sh: aarch64 debug build of the tests in $(( $(date +%s) - started )) s" >&2
fi
[ -x "$products/recorderdPackageTests.xctest" ] || { echo "test.sh: no $products/recorderdPackageTests.xctest (scripts/arm64/build.sh --build-tests)" >&2; exit 1; }

# In a mount namespace of its own (the mounts die with it): the tree at /src, sid's arm64 Swift
# runtime (the toolchain's target root) at /usr/lib/swift/linux, a /tmp and /dev/shm of its own,
# this machine's /etc/passwd and /etc/group.
tree=$(pwd)
exec unshare --mount --propagation private -- sh -c '
  set -e
  root=$1 tree=$2 products=$3 runtime=$4; shift 4
  mount --bind "$tree" "$root/src"
  mount --bind "$runtime" "$root/usr/lib/swift/linux"
  mount -t proc proc "$root/proc"
  mount -t tmpfs tmpfs "$root/tmp"
  mount -t tmpfs tmpfs "$root/dev/shm"
  # The users and groups of this machine (the root, unpacked without maintainer scripts, has none:
  # tests that look up root or a group would otherwise fail on the root, not on the code).
  for f in passwd group; do [ -e "$root/etc/$f" ] || : > "$root/etc/$f"; mount --bind "/etc/$f" "$root/etc/$f"; done
  exec chroot "$root" env LC_ALL=C.UTF-8 LD_LIBRARY_PATH=/usr/lib/swift/linux sh -c "cd /src && exec \"\$@\"" sh \
    "/src/$products/recorderdPackageTests.xctest" --testing-library swift-testing "$@"
' sh "$root" "$tree" "$products" "$toolchain/target/usr/libexec/swift/lib/swift/linux" "$@"
