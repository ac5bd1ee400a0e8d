#!/usr/bin/env bash
# Lets this machine run arm64 programs: binfmt_misc mounted and qemu-user-static's aarch64 entry
# enabled (Debian's qemu-user-static registers it; a container may not have mounted the file
# system). A program's C library is then found under $QEMU_LD_PREFIX, or / inside an arm64 root.
set -euo pipefail
entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
[ -x /usr/libexec/qemu-binfmt/aarch64-binfmt-P ] || [ -x /usr/bin/qemu-aarch64-static ] \
  || { echo "binfmt.sh: needs qemu-user-static (scripts/setup.sh)" >&2; exit 69; }
if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
  [ "$(id -u)" -eq 0 ] || { echo "binfmt.sh: binfmt_misc is not mounted; mounting it needs root" >&2; exit 77; }
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
if ! grep -qx enabled "$entry" 2>/dev/null; then
  [ "$(id -u)" -eq 0 ] || { echo "binfmt.sh: qemu-aarch64 is not enabled; enabling it needs root" >&2; exit 77; }
  update-binfmts --enable qemu-aarch64 >/dev/null
fi
grep -qx enabled "$entry" || { echo "binfmt.sh: qemu-aarch64 did not enable" >&2; exit 1; }
