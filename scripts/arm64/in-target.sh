#!/usr/bin/env bash
# Runs a command in the cross toolchain's target root (Debian 13 with the arm64 -dev packages,
# where dpkg knows the arm64 libraries), with the folder DIR bound at /stage for this command only
# and as its working directory.
#   scripts/arm64/in-target.sh DIR CMD ...
set -euo pipefail
bind=$(cd "$1" && pwd); shift
cd "$(dirname "$0")/../.."
dir=$(./scripts/arm64/toolchain.sh | tail -1)
mkdir -p "$dir/target/stage"
exec unshare --mount --propagation private -- sh -c '
  mount --bind "$1" "$2/target/stage"
  root=$2/target; shift 2
  exec chroot "$root" sh -c "cd /stage && exec \"\$@\"" sh "$@"
' sh "$bind" "$dir" "$@"
