#!/usr/bin/env bash
# Builds the Debian package recorderd_<version>_<arch>.deb from this tree, for the build
# machine's architecture or, with --arch arm64 on an x86_64 machine, for the Raspberry Pi's
# (cross-built by Debian's Swift: scripts/arm64/; needs root): release binaries linking the Swift
# runtime dynamically, the runtime held once for the three of them under /usr/lib/recorderd
# (scripts/swift-runtime.sh: the toolchain's own libraries they need — swift.org's for amd64,
# Debian's libswiftlang 6.2.3 for arm64 — with the executables' run path pointing there), staged
# by scripts/install.sh into /usr, the configuration as a conffile, maintainer scripts from
# debian/ (what install.sh does as root: the user, the directories, the socket enabled; the
# data kept on remove and removed on purge), dependencies from dpkg-shlibdeps.
#
#   scripts/build-deb.sh [--arch arm64] [--out DIR] [--no-build] [--bin-dir DIR] [--debug]
#
# --debug packages the tests' debug build (.build/debug; with --arch arm64, the aarch64 one of
# scripts/arm64/build.sh --build-tests) instead: its executables copied as they are (a copy, no
# compile and no link, after the build of the tests), with the debug runtime's extra library:
# what CI's guest tests install, so CI compiles the tree once per architecture and once for
# ThreadSanitizer. The package to ship is the release one.
#
# Prints the package's path on its last line. Needs dpkg-dev, fakeroot and patchelf (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

out=.build-deb
build=1
bindir=.build-deb/release
scratch=.build-deb
configuration=release
# xz's level: dpkg's default (6) for the package to ship; 1 for --debug's (a test package: 62 s
# of compression become 9 here, for a sixth more bytes, and the guest unpacks it faster).
level=()
arch=$(dpkg --print-architecture)
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --bin-dir) bindir=$2; build=0; shift 2 ;;
    --debug) scratch=.build; configuration=debug; bindir=""; level=(-z1); shift ;;
    --arch) arch=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "build-deb.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done

[ "$configuration" != debug ] || bindir=${bindir:-.build/debug}

version=$(sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/RecorderModel/RecorderVersion.swift)
[ -n "$version" ] || { echo "build-deb.sh: no version in RecorderVersion.swift" >&2; exit 1; }

# Another architecture: built in the cross toolchain's chroot; its binaries run here under
# qemu-user (the completions and man pages come from them), stripped by its binutils, their
# dependencies found by dpkg-shlibdeps in its target root (the arm64 libraries' packages); the
# runtime is Debian's arm64 one, in the toolchain's target root.
cross=""
strip=strip
runtime=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/lib/swift/linux
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
  case "$arch" in
    arm64) ;;
    *) echo "build-deb.sh: --arch $arch: only arm64 is cross-built (on $(dpkg --print-architecture))" >&2; exit 64 ;;
  esac
  cross=$(./scripts/arm64/toolchain.sh | tail -1)
  ./scripts/arm64/binfmt.sh
  export QEMU_LD_PREFIX="$cross/target"
  strip=aarch64-linux-gnu-strip
  command -v "$strip" >/dev/null || { echo "build-deb.sh: needs $strip (binutils-aarch64-linux-gnu: scripts/setup.sh)" >&2; exit 69; }
  runtime=$cross/target/usr/libexec/swift/lib/swift/linux
  products=.build-arm64/build/aarch64-unknown-linux-gnu
  case "$bindir" in
    .build-deb/release) bindir=$products/release ;;
    .build/debug) bindir=$products/debug ;;
  esac
fi

if [ "$build" = 1 ] && [ "$configuration" = release ]; then
  started=$(date +%s)
  for product in recorderd recorderd-services recorderctl; do
    if [ -n "$cross" ]; then
      ./scripts/arm64/build.sh -c release --product "$product"
    else
      # A scratch path of its own: the release build does not disturb the debug build of the tests in .build.
      swift build -c release --scratch-path "$scratch" --product "$product"
    fi
  done
  echo "build-deb.sh: $arch release build in $(( $(date +%s) - started )) s" >&2
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
# install.sh builds the man-page generator (a host tool) from the argument parser's checkout: the
# tests' build's where there is one (built once for both architectures), else this scratch path's.
checkouts=$scratch/checkouts
[ ! -d .build/checkouts/swift-argument-parser ] || checkouts=.build/checkouts
SWIFTPM_CHECKOUTS=$checkouts ./scripts/install.sh --prefix /usr --destdir "$root" --bin-dir "$bindir" --runtime "$runtime" > /dev/null

# Debian's places: udev rules under /usr/lib, the configuration as the conffile (dpkg keeps a
# changed one), no example copy, manual pages compressed, the binaries and the runtime stripped.
install -d "$root/usr/lib/udev/rules.d"
mv "$root/etc/udev/rules.d/"*.rules "$root/usr/lib/udev/rules.d/"
rm -rf "$root/etc/udev" "$root/etc/recorderd/recorderd.json.example"
sed -i 's|file:///usr/share/doc/recorderd/README.md|file:///usr/share/doc/recorderd/README.md.gz|' "$root/usr/lib/systemd/system/recorderd.service"
# Completions are sourced, not run: no interpreter line.
sed -i '1{/^#!/d}' "$root/usr/share/bash-completion/completions/"*
gzip -9n "$root/usr/share/man/man1/"*.1 "$root/usr/share/doc/recorderd/README.md" "$root/usr/share/doc/recorderd/docs/"*.md
"$strip" --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/"* "$root/usr/lib/recorderd/"*.so
install -m 0644 debian/copyright "$root/usr/share/doc/recorderd/copyright"
gzip -9n -c debian/changelog > "$root/usr/share/doc/recorderd/changelog.gz"
chmod 0644 "$root/usr/share/doc/recorderd/changelog.gz"
find "$root" -type d -exec chmod 0755 {} +

install -d "$root/DEBIAN"
for script in postinst prerm postrm; do install -m 0755 "debian/$script" "$root/DEBIAN/$script"; done
echo /etc/recorderd/recorderd.json > "$root/DEBIAN/conffiles"

# Dependencies: the shared libraries the binaries link, as dpkg-shlibdeps finds their packages.
install -d "$stage/debian"
cp debian/control "$stage/debian/control"
# The private runtime's libraries are the package's own (found through the run path): what they
# link of the system (libstdc++, libgcc) counts too.
shlibdeps=(dpkg-shlibdeps -O -e"root/usr/bin/recorderd" -e"root/usr/bin/recorderd-services" -e"root/usr/bin/recorderctl")
for library in "$root/usr/lib/recorderd/"*.so; do shlibdeps+=(-e"root/usr/lib/recorderd/${library##*/}"); done
if [ -n "$cross" ]; then
  depends=$(./scripts/arm64/in-root.sh "$cross/target" "$stage" dpkg-architecture -a arm64 -c "${shlibdeps[@]}" 2>/dev/null \
    | sed -n 's/^shlibs:Depends=//p')
else
  depends=$(cd "$stage" && "${shlibdeps[@]}" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
fi
[ -n "$depends" ] || { echo "build-deb.sh: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@DEPENDS@|$depends|" -e "s|@SIZE@|$size|" debian/control.binary > "$root/DEBIAN/control"

mkdir -p "$out"
deb="$out/recorderd_${version}_${arch}.deb"
fakeroot dpkg-deb --root-owner-group -Zxz ${level[@]+"${level[@]}"} --build "$root" "$deb" > /dev/null
echo "$deb"
