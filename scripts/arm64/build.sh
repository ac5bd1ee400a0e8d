#!/usr/bin/env bash
# Builds this tree for aarch64 with Debian's Swift (scripts/arm64/toolchain.sh's compiler, in its
# chroot, in a mount namespace of its own: the tree, the machine's Swift package mirror and the
# target root are bound into it for this command only). Arguments go to `swift build`; products
# land in .build-arm64/build/aarch64-unknown-linux-gnu/<configuration>.
#
#   scripts/arm64/build.sh -c release --static-swift-stdlib --product recorderd
#   scripts/arm64/build.sh --run CMD ...   runs CMD in the chroot (at the tree) instead
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(./scripts/arm64/toolchain.sh | tail -1)
tree=$(pwd)
run=0
if [ "${1:-}" = --run ]; then run=1; shift; fi
# The mounts die with the namespace; /proc lets the compiler find its own libraries ($ORIGIN).
exec unshare --mount --propagation private -- sh -c '
  set -e
  dir=$1 tree=$2 run=$3; shift 3
  mount -t proc proc "$dir/sid/proc"
  mount --bind "$dir/target" "$dir/sid/sysroot"
  mount --bind "$tree" "$dir/sid/src"
  [ ! -d /opt/swift-packages ] || mount --bind /opt/swift-packages "$dir/sid/opt/swift-packages"
  export PKG_CONFIG_SYSROOT_DIR=/sysroot PKG_CONFIG_PATH=/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/sysroot/usr/share/pkgconfig
  if [ "$run" = 1 ]; then exec chroot "$dir/sid" sh -c "cd /src && exec \"\$@\"" sh "$@"; fi
  exec chroot "$dir/sid" sh -c "cd /src && exec swift build --swift-sdks-path /sdks --swift-sdk trixie-arm64 --scratch-path .build-arm64/build \"\$@\"" sh "$@"
' sh "$dir" "$tree" "$run" "$@"
