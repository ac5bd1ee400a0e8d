#!/usr/bin/env bash
# A clean Debian 13 (trixie) arm64 root, as a Raspberry Pi's: mmdebstrap's minimal system with
# apt, its arm64 maintainer scripts run under qemu-user (scripts/arm64/binfmt.sh), packed into a
# tarball in the rigs' cache (scripts/ci/cache.sh: keyed by this script and the host's mmdebstrap
# and qemu-user-static; checked and taken when ready), .build-arm64/trixie-arm64.tar pointing at
# it: about 2 minutes here, where debootstrap's second stage under qemu-user took 7 to 14. The
# tests unpack a copy per test and `apt install` the package into it from Debian's registry
# ($DEBIAN_MIRROR): apt without recommends, dpkg without syncing each file it unpacks (the copies
# are thrown away).
#   scripts/arm64/root.sh [--dir DIR]      DIR: made there, not cached; prints the tarball's path last
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=""
[ "${1:-}" != --dir ] || dir=$2
[ "$(id -u)" -eq 0 ] || { echo "root.sh: needs root (mmdebstrap's root mode: chroot, device nodes)" >&2; exit 77; }
entry=""
if [ -z "$dir" ]; then
  . scripts/ci/cache.sh
  entry=$(rig_entry arm64-root "$(rig_key arm64-root scripts/arm64/root.sh -- "$(rig_host_versions mmdebstrap qemu-user-static)")")
  if rig_ready "$entry" trixie-arm64.tar; then
    rig_link "$entry/trixie-arm64.tar" .build-arm64/trixie-arm64.tar
    echo "$entry/trixie-arm64.tar"; exit 0
  fi
  rig_fresh "$entry"
  dir=$entry
fi
./scripts/arm64/binfmt.sh
mkdir -p "$dir"
tar=$dir/trixie-arm64.tar
rm -f "$tar" "$tar.partial"
mmdebstrap --mode=root --architectures=arm64 --variant=minbase --format=tar \
  --aptopt='APT::Install-Recommends "false"' --dpkgopt=force-unsafe-io \
  trixie "$tar.partial" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" > "$dir/arm64-root.log" 2>&1 \
  || { tail -20 "$dir/arm64-root.log" >&2; rm -f "$tar.partial"; echo "root.sh: mmdebstrap failed (log: $dir/arm64-root.log)" >&2; exit 1; }
mv "$tar.partial" "$tar"
if [ -n "$entry" ]; then
  # The versions it took: dpkg's status file in the tarball.
  tar -xOf "$tar" ./var/lib/dpkg/status | awk '/^Package: /{p=$2} /^Architecture: /{a=$2} /^Version: /{v=$2} /^$/{if (p) print p ":" a " " v; p=""}' \
    | LC_ALL=C sort > "$dir/versions"
  rig_seal "$entry" trixie-arm64.tar
  rig_prune "$entry"
  rig_link "$tar" .build-arm64/trixie-arm64.tar
fi
echo "$tar"
