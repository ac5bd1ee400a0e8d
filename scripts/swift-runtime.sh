#!/usr/bin/env bash
# The Swift runtime held once for recorderd's three executables: copies into LIBDIR the shared
# libraries of RUNTIME (the toolchain's lib/swift/linux: swift.org's for amd64, Debian's
# libswiftlang for arm64) that BINARY… need, directly or through each other (their NEEDED
# entries, read by readelf: any architecture), and points each BINARY's run path at LIBDIR as
# `$ORIGIN/../lib/recorderd` (patchelf; the libraries find each other by their own `$ORIGIN`).
# Libraries not in RUNTIME (the C library, libiio, libasound…) are the system's, as the package's
# dependencies say. Prints the libraries' names.
#
#   scripts/swift-runtime.sh RUNTIME LIBDIR BINARY...
#
# Used by scripts/install.sh (and so by scripts/build-deb.sh): LIBDIR is PREFIX/lib/recorderd,
# beside PREFIX/bin.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,13p' "$0" >&2; exit 64; }
runtime=$1 libdir=$2; shift 2
[ -f "$runtime/libswiftCore.so" ] || { echo "swift-runtime.sh: $runtime holds no libswiftCore.so (not a Swift runtime folder)" >&2; exit 66; }
command -v patchelf > /dev/null || { echo "swift-runtime.sh: needs patchelf (scripts/setup.sh)" >&2; exit 69; }
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
declare -A taken=()
queue=()
for binary in "$@"; do mapfile -t -O "${#queue[@]}" queue < <(needed "$binary"); done
while [ ${#queue[@]} -gt 0 ]; do
  library=${queue[0]}
  queue=("${queue[@]:1}")
  [ -z "${taken[$library]:-}" ] && [ -f "$runtime/$library" ] || continue
  taken[$library]=1
  mapfile -t -O "${#queue[@]}" queue < <(needed "$runtime/$library")
done
install -d "$libdir"
for library in "${!taken[@]}"; do install -m 0644 "$runtime/$library" "$libdir/$library"; done
for binary in "$@"; do patchelf --set-rpath '$ORIGIN/../lib/recorderd' "$binary"; done
printf '%s\n' "${!taken[@]}" | LC_ALL=C sort
