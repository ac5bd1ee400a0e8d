#!/usr/bin/env bash
# Runs a command in a root folder (the cross toolchain's target root, an arm64 root: its programs
# run under qemu-user) in a mount namespace of its own: the folder DIR bound at /work, its working
# directory, and /proc mounted, for this command only.
#   scripts/arm64/in-root.sh ROOT DIR CMD ...
set -euo pipefail
root=$(cd "$1" && pwd); bind=$(cd "$2" && pwd); shift 2
mkdir -p "$root/work"
exec unshare --mount --propagation private -- sh -c '
  mount --bind "$2" "$1/work"
  mount -t proc proc "$1/proc"
  root=$1; shift 2
  exec chroot "$root" sh -c "cd /work && exec \"\$@\"" sh "$@"
' sh "$root" "$bind" "$@"
