#!/usr/bin/env bash
# A clean Debian 13 (trixie) arm64 root, as a Raspberry Pi's: debootstrap's minimal system with
# apt, its second stage run under qemu-user (scripts/arm64/binfmt.sh), packed once into
# .build-arm64/trixie-arm64.tar (cached; rebuilt when this script changes). The tests unpack a
# copy per test and `apt install` the package into it from Debian's registry ($DEBIAN_MIRROR).
#   scripts/arm64/root.sh [--dir DIR]      prints the tarball's path last
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=.build-arm64
[ "${1:-}" != --dir ] || dir=$2
[ "$(id -u)" -eq 0 ] || { echo "root.sh: needs root (debootstrap)" >&2; exit 77; }
./scripts/arm64/binfmt.sh
mkdir -p "$dir"
tar=$dir/trixie-arm64.tar
want=$(sha256sum "$0" | cut -d' ' -f1)
if [ -f "$tar" ] && [ "$(cat "$tar.stamp" 2>/dev/null)" = "$want" ]; then echo "$tar"; exit 0; fi
rm -rf "$dir/arm64-root" "$tar" "$tar.stamp"
debootstrap --arch=arm64 --variant=minbase trixie "$dir/arm64-root" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" > "$dir/arm64-root.log" 2>&1 \
  || { tail -20 "$dir/arm64-root.log" >&2; echo "root.sh: debootstrap failed (log: $dir/arm64-root.log)" >&2; exit 1; }
rm -f "$dir/arm64-root/var/cache/apt/archives/"*.deb
printf 'APT::Install-Recommends "false";\n' > "$dir/arm64-root/etc/apt/apt.conf.d/90recorderd"
# The tests' copies are thrown away: dpkg need not sync each file it unpacks into them.
echo force-unsafe-io > "$dir/arm64-root/etc/dpkg/dpkg.cfg.d/90recorderd"
tar -C "$dir/arm64-root" -cf "$tar" .
rm -rf "$dir/arm64-root"
echo "$want" > "$tar.stamp"
echo "$tar"
