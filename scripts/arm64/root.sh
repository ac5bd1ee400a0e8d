#!/usr/bin/env bash
# A clean Debian 13 (trixie) arm64 root, as a Raspberry Pi's: mmdebstrap's minimal system with
# apt, its arm64 maintainer scripts run under qemu-user (scripts/arm64/binfmt.sh), packed into
# .build-arm64/trixie-arm64.tar (cached; rebuilt when this script changes): about 2 minutes here,
# where debootstrap's second stage under qemu-user took 7 to 14. The tests unpack a copy per test
# and `apt install` the package into it from Debian's registry ($DEBIAN_MIRROR): apt without
# recommends, dpkg without syncing each file it unpacks (the copies are thrown away).
#   scripts/arm64/root.sh [--dir DIR]      prints the tarball's path last
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=.build-arm64
[ "${1:-}" != --dir ] || dir=$2
[ "$(id -u)" -eq 0 ] || { echo "root.sh: needs root (mmdebstrap's root mode: chroot, device nodes)" >&2; exit 77; }
./scripts/arm64/binfmt.sh
mkdir -p "$dir"
tar=$dir/trixie-arm64.tar
want=$(sha256sum "$0" | cut -d' ' -f1)
if [ -f "$tar" ] && [ "$(cat "$tar.stamp" 2>/dev/null)" = "$want" ]; then echo "$tar"; exit 0; fi
rm -f "$tar" "$tar.partial" "$tar.stamp"
mmdebstrap --mode=root --architectures=arm64 --variant=minbase --format=tar \
  --aptopt='APT::Install-Recommends "false"' --dpkgopt=force-unsafe-io \
  trixie "$tar.partial" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" > "$dir/arm64-root.log" 2>&1 \
  || { tail -20 "$dir/arm64-root.log" >&2; rm -f "$tar.partial"; echo "root.sh: mmdebstrap failed (log: $dir/arm64-root.log)" >&2; exit 1; }
mv "$tar.partial" "$tar"
echo "$want" > "$tar.stamp"
echo "$tar"
