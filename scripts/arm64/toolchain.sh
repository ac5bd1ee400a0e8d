#!/usr/bin/env bash
# Sets up the arm64 cross toolchain, from Debian's packages only, in the rigs' cache
# (scripts/ci/cache.sh: outside the clone, keyed by this script and the host's debootstrap; a
# second call, from any clone, checks it and returns at once), with .build-arm64/sid and
# .build-arm64/target pointing at it:
#
#   sid       Debian unstable (amd64) with its swiftlang 6.2.3, the compiler (trixie's 6.0.3 is
#             older than the manifest's tools version), run in a chroot
#   target    Debian 13 (trixie, amd64) with arm64 as a foreign architecture: the arm64 -dev
#             packages the binaries link (the sysroot: trixie's C library, 2.41, not sid's 2.43,
#             so the binaries start on trixie), dpkg-shlibdeps and aarch64 binutils for the
#             package; and under usr/libexec/swift sid's arm64 Swift modules, static runtime
#             (swiftlang:arm64) and shared runtime (libswiftlang:arm64: the tests' debug build
#             and the package's private runtime)
#   sid/sdks  the Swift SDK bundle naming them (`swift build --swift-sdk trixie-arm64`)
#
# Needs root (debootstrap, chroot), debootstrap and network access to Debian's registry
# ($DEBIAN_MIRROR, default deb.debian.org). scripts/arm64/build.sh runs the compiler.
#   scripts/arm64/toolchain.sh [--dir DIR]      DIR: made there instead, not cached
# Prints the folder on its last line.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "toolchain.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "toolchain.sh: needs root (debootstrap, chroot)" >&2; exit 77; }
command -v debootstrap >/dev/null || { echo "toolchain.sh: needs debootstrap (scripts/setup.sh)" >&2; exit 69; }
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# What the arm64 binaries link (Package.swift's system libraries) and what the package needs.
target_packages=(libc6-dev:arm64 libgcc-14-dev:arm64 libstdc++-14-dev:arm64 linux-libc-dev:arm64
  libiio-dev:arm64 libgps-dev:arm64 libasound2-dev:arm64 libmosquitto-dev:arm64 libzstd-dev:arm64
  libsystemd-dev:arm64 libcairo2-dev:arm64 zlib1g-dev:arm64 dpkg-dev binutils-aarch64-linux-gnu)
# The compiler's root: swiftlang, a C library for the manifests (built for the machine), git for
# the packages (read from /opt/swift-packages), pkg-config for the system libraries' flags.
sid_packages=(swiftlang libc6-dev git pkgconf)
swift_version=6.2.3

# What a finished toolchain holds (checked before each use): the compiler, the arm64 Swift tree,
# the arm64 libraries, the SDK bundle.
parts=(sid/usr/libexec/swift/bin target/usr/libexec/swift target/usr/lib/aarch64-linux-gnu sid/sdks/trixie-arm64.artifactbundle)
entry=""
if [ -z "$dir" ]; then
  . scripts/ci/cache.sh
  entry=$(rig_entry arm64-toolchain "$(rig_key arm64-toolchain scripts/arm64/toolchain.sh -- "$(rig_host_versions debootstrap)")")
  if rig_ready "$entry" "${parts[@]}"; then
    rig_link "$entry/sid" .build-arm64/sid
    rig_link "$entry/target" .build-arm64/target
    echo "$entry"; exit 0
  fi
  rig_fresh "$entry"
  dir=$entry
fi
mkdir -p "$dir"

# A root of SUITE (amd64, minbase) at DIR with PACKAGES; apt reads sid's Release past its
# Valid-Until (the registry's copy is a snapshot) and installs no recommends.
make_root() {
  local suite=$1 root=$2; shift 2
  rm -rf "$root"
  debootstrap --variant=minbase "$suite" "$root" "$mirror" > "$root.log" 2>&1 \
    || { tail -20 "$root.log" >&2; echo "toolchain.sh: debootstrap $suite failed (log: $root.log)" >&2; return 1; }
  printf 'Acquire::Check-Valid-Until "false";\nAPT::Install-Recommends "false";\n' > "$root/etc/apt/apt.conf.d/90recorderd"
  # A build root, made again if broken: dpkg need not sync each file it unpacks (a gigabyte of
  # fsyncs that stalled whatever else the machine was writing).
  echo force-unsafe-io > "$root/etc/dpkg/dpkg.cfg.d/90recorderd"
}
in_root() { local root=$1; shift; chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }

set_up_sid() {
  make_root sid "$dir/sid"
  in_root "$dir/sid" sh -c 'dpkg --add-architecture arm64 && apt-get update -qq' >> "$dir/sid.log" 2>&1
  in_root "$dir/sid" apt-get install -y -qq "${sid_packages[@]}" >> "$dir/sid.log" 2>&1
  # git reads github.com from the machine's mirror, bound at the same place in the chroot.
  printf '[url "/opt/swift-packages/"]\n\tinsteadOf = https://github.com/\n[safe]\n\tdirectory = *\n' > "$dir/sid/etc/gitconfig"
  mkdir -p "$dir/sid/src" "$dir/sid/sysroot" "$dir/sid/sdks" "$dir/sid/opt/swift-packages"
  # sid's arm64 runtime, for the target root: the modules and the static runtime (swiftlang), the
  # shared runtime the tests' debug build links (libswiftlang).
  rm -f "$dir"/sid/tmp/swiftlang_*_arm64.deb "$dir"/sid/tmp/libswiftlang_*_arm64.deb
  in_root "$dir/sid" sh -c 'cd /tmp && apt-get download -qq swiftlang:arm64 libswiftlang:arm64' >> "$dir/sid.log" 2>&1
}
set_up_target() {
  make_root trixie "$dir/target"
  in_root "$dir/target" sh -c 'dpkg --add-architecture arm64 && apt-get update -qq' >> "$dir/target.log" 2>&1
  in_root "$dir/target" apt-get install -y -qq "${target_packages[@]}" >> "$dir/target.log" 2>&1
}
set_up_sid & sid=$!
set_up_target & target=$!
wait $sid || { tail -20 "$dir/sid.log" >&2; echo "toolchain.sh: the compiler's root failed (log: $dir/sid.log)" >&2; exit 1; }
wait $target || { tail -20 "$dir/target.log" >&2; echo "toolchain.sh: the target root failed (log: $dir/target.log)" >&2; exit 1; }

version=$(chroot "$dir/sid" dpkg-query -W -f='${Version}' swiftlang)
case "$version" in "$swift_version"*) ;; *) echo "toolchain.sh: sid's swiftlang is $version, not $swift_version" >&2; exit 1 ;; esac
# The arm64 Swift tree, laid out as Debian does (usr/lib/swift and swift_static link into it):
# the modules, the static runtime and clang's headers; not the arm64 programs.
deb=$(ls "$dir"/sid/tmp/swiftlang_*_arm64.deb)
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir/target" ./usr/libexec/swift/lib/swift ./usr/libexec/swift/lib/swift_static ./usr/libexec/swift/lib/clang
runtime=$(ls "$dir"/sid/tmp/libswiftlang_*_arm64.deb)
dpkg-deb --fsys-tarfile "$runtime" | tar -x -C "$dir/target" ./usr/libexec/swift/lib/swift/linux
rm -f "$runtime"
# Debian's Swift Testing has the Foundation overlay's interface (_Testing_Foundation) but not its
# library, which every test file importing both autolinks: an empty archive satisfies the link
# (the tests use none of the overlay's symbols; the link would name any they did).
rm -f "$dir/target/usr/libexec/swift/lib/swift/linux/lib_Testing_Foundation.a"
chroot "$dir/target" aarch64-linux-gnu-ar rc /usr/libexec/swift/lib/swift/linux/lib_Testing_Foundation.a
ln -sfn ../libexec/swift/lib/swift "$dir/target/usr/lib/swift"
ln -sfn ../libexec/swift/lib/swift_static "$dir/target/usr/lib/swift_static"
rm -f "$deb"

# The SDK bundle: the target root as the compiler's chroot sees it (/sysroot), linked by lld.
bundle="$dir/sid/sdks/trixie-arm64.artifactbundle"
mkdir -p "$bundle/trixie-arm64"
cat > "$bundle/info.json" <<'EOF'
{"schemaVersion": "1.0", "artifacts": {"trixie-arm64": {"type": "swiftSDK", "version": "1", "variants": [{"path": "trixie-arm64"}]}}}
EOF
cat > "$bundle/trixie-arm64/swift-sdk.json" <<'EOF'
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "/sysroot",
      "swiftResourcesPath": "/sysroot/usr/lib/swift",
      "swiftStaticResourcesPath": "/sysroot/usr/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
EOF
cat > "$bundle/trixie-arm64/toolset.json" <<'EOF'
{
  "schemaVersion": "1.0",
  "linker": {"path": "/usr/libexec/swift/bin/ld.lld"},
  "swiftCompiler": {"extraCLIOptions": ["-use-ld=lld", "-Xclang-linker", "--sysroot=/sysroot"]}
}
EOF
if [ -n "$entry" ]; then
  { rig_root_versions "$dir/sid" | sed 's/^/sid /'; rig_root_versions "$dir/target" | sed 's/^/target /'; } > "$dir/versions"
  rig_seal "$entry" "${parts[@]}"
  rig_prune "$entry"
  rig_link "$entry/sid" .build-arm64/sid
  rig_link "$entry/target" .build-arm64/target
fi
echo "toolchain.sh: swiftlang $version (sid) for aarch64 with trixie's $(chroot "$dir/target" dpkg-query -W -f='${Version}' libc6:arm64) C library" >&2
echo "$dir"
