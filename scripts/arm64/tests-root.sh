#!/usr/bin/env bash
# The arm64 tests' root (scripts/arm64/test.sh runs the aarch64 test build in it under qemu-user):
# the libraries the tests link (Package.swift's system libraries, at their trixie names, and the
# Swift runtime's own) and what they depend on, with dash and coreutils for the chroot's `sh -c`
# and `env`, unpacked by mmdebstrap's extract variant on this machine — no maintainer script
# runs, so nothing runs under qemu-user: 15 s here, where apt installing them into a copy of
# root.sh's clean root took about 2 minutes of emulated apt and dpkg. A shared library needs no
# maintainer script (the loader finds trixie's multiarch directories without ld.so.cache);
# merged /usr's links are made here, as base-files' would be.
#
# In the rigs' cache (scripts/ci/cache.sh: keyed by this script and the host's mmdebstrap; checked
# and taken when ready), .build-arm64/tests-root pointing at it. Needs root. Prints the root last.
#   scripts/arm64/tests-root.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" -eq 0 ] || { echo "tests-root.sh: needs root (mmdebstrap's root mode)" >&2; exit 77; }
packages=(dash coreutils libiio0 libgps30t64 libasound2t64 libmosquitto1 libzstd1 libsystemd0 libcairo2 zlib1g libstdc++6 libcurl4t64)
. scripts/ci/cache.sh
entry=$(rig_entry arm64-tests-root "$(rig_key arm64-tests-root scripts/arm64/tests-root.sh -- "$(rig_host_versions mmdebstrap)")")
parts=(root/usr/lib/aarch64-linux-gnu root/usr/bin)
if ! rig_ready "$entry" "${parts[@]}"; then
  rig_fresh "$entry"
  root=$entry/root
  mmdebstrap --mode=root --architectures=arm64 --variant=extract --aptopt='APT::Install-Recommends "false"' \
    --include="$(IFS=,; echo "${packages[*]}")" trixie "$root" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" > "$entry/root.log" 2>&1 \
    || { tail -20 "$entry/root.log" >&2; echo "tests-root.sh: the tests' root failed (log: $entry/root.log)" >&2; exit 1; }
  for link in bin lib sbin; do [ -e "$root/$link" ] || ln -s "usr/$link" "$root/$link"; done
  mkdir -p "$root/src" "$root/usr/lib/swift/linux" "$root/proc" "$root/tmp"
  rig_root_versions "$root" > "$entry/versions"
  rig_seal "$entry" "${parts[@]}"
  rig_prune "$entry"
fi
rig_link "$entry/root" .build-arm64/tests-root
echo "$entry/root"
