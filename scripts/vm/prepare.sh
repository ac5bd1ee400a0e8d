#!/usr/bin/env bash
# Prepares a VM test rig once (cached): Debian's kernel package (its current image, from the apt
# registry: downloaded and unpacked, never installed on the host) and its module index (depmod);
# the guest's root filesystem, a minimal Debian (debootstrap from the same registry, with systemd,
# udev and what the package depends on) as an ext4 disk image; and an initramfs of busybox, the
# virtio/ext4/9p modules and scripts/vm/init. The rig's architecture is in DIR/arch.
#
#   scripts/vm/prepare.sh [DIR]                  amd64: Debian 12's linux-image-amd64 and root,
#                                                under qemu-system-x86_64 (.build-vm)
#   scripts/vm/prepare.sh --arch arm64 [DIR]     arm64: Debian 13's linux-image-arm64 and an arm64
#                                                Debian 13 root (the Raspberry Pi OS base), under
#                                                qemu-system-aarch64 (.build-vm-arm64)
# Without DIR the rig is made in the rigs' cache (scripts/ci/cache.sh: outside the clone, keyed by
# this script and what it takes from the host) and .build-vm or .build-vm-arm64 points at it; a
# ready one is checked and taken. Prints the rig's folder on its last line.
#
# Debian's arm64 kernel has neither i2c-stub nor hci_vhci (the amd64 one has both): they are
# built here from the same kernel version's source (linux-source-6.12: the two files) against its
# headers (linux-headers-…-arm64) by Debian's cross compiler, in a small Debian 13 amd64 root of
# the rig's own (DIR/kbuild), and installed as the kernel's `updates` modules.
#
# Needs root (debootstrap), apt-get, debootstrap, e2fsprogs, qemu-system-x86 or qemu-system-arm,
# busybox-static, and for arm64 qemu-user-static and mmdebstrap (scripts/setup.sh installs them). DEBIAN_MIRROR
# overrides http://deb.debian.org/debian.
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=amd64
[ "${1:-}" != --arch ] || { arch=$2; shift 2; }
case "$arch" in
  amd64) link=.build-vm suite=bookworm ;;
  arm64) link=.build-vm-arm64 suite=trixie ;;
  *) echo "prepare.sh: no rig for $arch (amd64, arm64)" >&2; exit 64 ;;
esac
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
if [ "$(dpkg --print-architecture)" != amd64 ]; then
  echo "prepare.sh: the guest rigs are prepared and run on amd64 (qemu-system-x86_64, qemu-system-aarch64); skipped on $(dpkg --print-architecture)" >&2
  exit 0
fi
# What a finished rig holds (its check before use: scripts/ci/cache.sh).
parts=(kernel/vmlinuz kernel/boot kernel/lib root.ext4 initramfs.cpio.gz arch)
[ "$arch" = amd64 ] || parts+=(busybox)
# Without DIR: in the rigs' cache (scripts/ci/cache.sh), keyed by this script, the guest's init,
# the host's tools that make it and, for amd64, the kernel package apt offers; LINK (.build-vm,
# .build-vm-arm64: where the tests look) points at it. A ready rig is taken as it is.
entry=""
if [ -z "${1:-}" ]; then
  . scripts/ci/cache.sh
  if [ "$arch" = amd64 ]; then
    host=(debootstrap e2fsprogs busybox-static kmod)
    offered="kernel=$(apt-cache policy linux-image-amd64 2>/dev/null | sed -n 's/^ *Candidate: //p')"
  else
    host=(mmdebstrap e2fsprogs qemu-user-static)
    offered=""
  fi
  key=$(rig_key "vm-$arch" scripts/vm/prepare.sh scripts/vm/init scripts/arm64/binfmt.sh -- "$(rig_host_versions "${host[@]}")" "$offered")
  entry=$(rig_entry "vm-$arch" "$key")
  if rig_ready "$entry" "${parts[@]}"; then
    rig_link "$entry" "$link"
    echo "$entry"
    exit 0
  fi
  [ "$(id -u)" = 0 ] || { echo "prepare.sh: the guest rig needs root (debootstrap, mmdebstrap); not built" >&2; exit 1; }
  rig_fresh "$entry"
  dir=$entry
else
  dir=$1
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
need_root() { [ "$(id -u)" = 0 ] || { echo "prepare.sh: $1 needs root; the guest rig is not built" >&2; exit 1; }; }

# arm64's kernel, its two built modules and busybox come through DIR/kbuild's apt (arm64 as a
# foreign architecture); the packages downloaded are left in DIR/kbuild/debs.
kbuild=$dir/kbuild
kbuild_root() {
  [ -f "$kbuild/ready" ] && return 0
  need_root debootstrap
  rm -rf --one-file-system "$kbuild"
  debootstrap --variant=minbase trixie "$kbuild" "$mirror" > "$dir/kbuild.log" 2>&1 ||
    { tail -20 "$dir/kbuild.log" >&2; exit 1; }
  printf 'APT::Install-Recommends "false";\n' > "$kbuild/etc/apt/apt.conf.d/90recorderd"
  echo force-unsafe-io > "$kbuild/etc/dpkg/dpkg.cfg.d/90recorderd"
  chroot "$kbuild" sh -c 'dpkg --add-architecture arm64 && apt-get update -qq' >> "$dir/kbuild.log" 2>&1
  touch "$kbuild/ready"
}
in_kbuild() { chroot "$kbuild" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }

if [ ! -f "$dir/kernel/ready" ]; then
  rm -rf "$dir/kernel" "$dir/download"
  mkdir -p "$dir/download" "$dir/kernel"
  if [ "$arch" = amd64 ]; then
    image=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -1)
    [ -n "$image" ] || { echo "prepare.sh: apt knows no linux-image-amd64 (apt-get update first)" >&2; exit 1; }
    (cd "$dir/download" && apt-get download "$image" 2>&1 | grep -v "^W: Download is performed unsandboxed" || true)
    dpkg-deb -x "$(ls "$dir/download/"*.deb)" "$dir/kernel"
  else
    kbuild_root
    image=$(in_kbuild apt-cache depends linux-image-arm64:arm64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*\):arm64$/\1/p' | head -1)
    [ -n "$image" ] || { echo "prepare.sh: trixie's apt knows no linux-image-arm64" >&2; exit 1; }
    release=${image#linux-image-} version=${release%-arm64}
    major=$(echo "$version" | cut -d. -f1,2)
    in_kbuild apt-get install -y -qq "linux-kbuild-$version" gcc-14-aarch64-linux-gnu make xz-utils > "$dir/download/install.log" 2>&1 ||
      { tail -20 "$dir/download/install.log" >&2; exit 1; }
    rm -rf "$kbuild/debs" "$kbuild/modules"
    mkdir -p "$kbuild/debs" "$kbuild/modules"
    in_kbuild sh -c "cd /debs && apt-get download -qq $image:arm64 linux-headers-$release:arm64 linux-headers-$version-common \
      linux-source-$major busybox-static:arm64" 2>&1 | grep -v "^W: Download is performed unsandboxed" || true
    dpkg-deb -x "$(ls "$kbuild/debs/$image"_*.deb)" "$dir/kernel"
    # Debian 13 is merged-/usr: the modules are under usr/lib, where the guest's /lib points.
    mkdir -p "$dir/kernel/lib"
    mv "$dir/kernel/usr/lib/modules" "$dir/kernel/lib/modules"
    # The headers unpacked (not installed: they depend on an arm64 gcc), the two sources taken
    # out of the kernel's source tarball, built against them.
    in_kbuild sh -c "for d in /debs/linux-headers-*.deb; do dpkg-deb -x \$d /; done
      dpkg-deb --fsys-tarfile /debs/linux-source-${major}_*.deb | tar -xO ./usr/src/linux-source-$major.tar.xz | xz -dc \
        | tar -x -C /modules --strip-components=2 linux-source-$major/drivers/i2c/i2c-stub.c linux-source-$major/drivers/bluetooth/hci_vhci.c
      cd /modules && mv i2c/i2c-stub.c bluetooth/hci_vhci.c . && echo 'obj-m := i2c-stub.o hci_vhci.o' > Kbuild
      make -s -C /usr/src/linux-headers-$release M=/modules ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC=aarch64-linux-gnu-gcc-14 modules" \
      > "$dir/download/modules.log" 2>&1 || { tail -20 "$dir/download/modules.log" >&2; echo "prepare.sh: i2c-stub and hci_vhci did not build" >&2; exit 1; }
    mkdir -p "$dir/kernel/lib/modules/$release/updates"
    cp "$kbuild/modules/i2c-stub.ko" "$kbuild/modules/hci_vhci.ko" "$dir/kernel/lib/modules/$release/updates/"
    mkdir -p "$dir/busybox"
    dpkg-deb -x "$(ls "$kbuild/debs/busybox-static_"*.deb)" "$dir/busybox"
  fi
  rm -rf "$dir/download"
  release=$(ls "$dir/kernel/lib/modules")
  depmod -b "$dir/kernel" "$release"
  ln -sf "boot/vmlinuz-$release" "$dir/kernel/vmlinuz"
  touch "$dir/kernel/ready"
fi
release=$(ls "$dir/kernel/lib/modules")
# The guest's packages: systemd and udev; what recorderd's package depends on; the tools the
# guest tests use (i2c-tools, alsa-utils, kmod, iproute2, procps); for Bluetooth LE, BlueZ and the
# system bus, btvirt (virtual controllers over hci_vhci, bluez-test-tools) and Python's D-Bus
# bindings for the test's heart-rate peripheral; chrony (the time service recorderd asks, through
# the service's hardening). Debian 13 names its libraries after the 64-bit time_t transition.
case "$arch" in
  amd64) libraries=libgps28,libasound2 ;;
  arm64) libraries=libgps30t64,libasound2t64 ;;
esac
packages=systemd,systemd-sysv,udev,kmod,apt,i2c-tools,alsa-utils,iproute2,procps,util-linux,libiio0,$libraries,libmosquitto1,libzstd1,zlib1g,libsystemd0,dbus,bluez,bluez-test-tools,python3-dbus,python3-gi,chrony
if [ ! -f "$dir/root.ext4" ] || [ "$(cat "$dir/root.packages" 2>/dev/null)" != "$packages" ]; then
  need_root "the guest's root (debootstrap, mmdebstrap)"
  rm -rf "$dir/rootfs" "$dir/root.ext4"
  if [ "$arch" = amd64 ]; then
    debootstrap --arch="$arch" --variant=minbase --include="$packages" "$suite" "$dir/rootfs" "$mirror" > "$dir/debootstrap.log" 2>&1 ||
      { tail -20 "$dir/debootstrap.log" >&2; exit 1; }
  else
    # arm64's by mmdebstrap (its arm64 programs under qemu-user, binfmt_misc): 6 minutes here,
    # where debootstrap's second stage under qemu-user took about 27. Without recommends, as the
    # amd64 root.
    ./scripts/arm64/binfmt.sh
    mmdebstrap --mode=root --architectures="$arch" --variant=minbase --include="$packages" \
      --aptopt='APT::Install-Recommends "false"' "$suite" "$dir/rootfs" "$mirror" > "$dir/mmdebstrap.log" 2>&1 ||
      { tail -20 "$dir/mmdebstrap.log" >&2; exit 1; }
  fi
  rm -f "$dir/rootfs/var/cache/apt/archives/"*.deb
  dpkg-query --admindir="$dir/rootfs/var/lib/dpkg" -W -f='${Package}:${Architecture} ${Version}\n' | LC_ALL=C sort > "$dir/root.versions"
  echo vm > "$dir/rootfs/etc/hostname"
  # Room for what a test installs (the package unpacks to about 170 MB; arm64's debug one to 230).
  size=$(( $(du -sm "$dir/rootfs" | cut -f1) + 1024 ))
  mkfs.ext4 -q -F -L vmroot -O ^metadata_csum -d "$dir/rootfs" "$dir/root.ext4" "${size}M"
  rm -rf "$dir/rootfs"
  echo "$packages" > "$dir/root.packages"
fi
if [ ! -f "$dir/initramfs.cpio.gz" ] || [ scripts/vm/init -nt "$dir/initramfs.cpio.gz" ] || [ scripts/vm/prepare.sh -nt "$dir/initramfs.cpio.gz" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work"/{bin,proc,sys,dev,newroot,modules}
  case "$arch" in
    amd64) cp /bin/busybox "$work/bin/busybox" ;;
    arm64) cp "$(ls "$dir/busybox/usr/bin/busybox" "$dir/busybox/bin/busybox" 2>/dev/null | head -1)" "$work/bin/busybox" ;;
  esac
  # The modules the root and the shares need, in load order; those built into a kernel (arm64's
  # virtio transport) are not there. Compressed ones (Debian 13's .ko.xz) are unpacked for
  # busybox's insmod.
  order=""
  for m in virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk crc16 mbcache jbd2 crc32c_generic ext4 netfs fscache 9pnet 9pnet_virtio 9p; do
    f=$(find "$dir/kernel/lib/modules/$release" -name "$m.ko" -o -name "$m.ko.xz" | head -1)
    if [ -z "$f" ]; then
      [ "$arch" = arm64 ] || [ "$m" = fscache ] || { echo "prepare.sh: no module $m in $release" >&2; exit 1; }
      continue
    fi
    case "$f" in
      *.xz) xz -dc "$f" > "$work/modules/$m.ko" ;;
      *) cp "$f" "$work/modules/$m.ko" ;;
    esac
    order+="$m "
  done
  for m in virtio_blk ext4 9pnet_virtio 9p; do
    case " $order" in *" $m "*) ;; *) grep -q "/$m.ko" "$dir/kernel/lib/modules/$release/modules.builtin" \
      || { echo "prepare.sh: no module $m in $release" >&2; exit 1; } ;; esac
  done
  echo "$order" > "$work/modules/order"
  install -m 0755 scripts/vm/init "$work/init"
  (cd "$work" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$dir/initramfs.cpio.gz.new"
  mv "$dir/initramfs.cpio.gz.new" "$dir/initramfs.cpio.gz"
fi
echo "$arch" > "$dir/arch"
if [ -n "$entry" ]; then
  { echo "kernel $release"; cat "$dir/root.versions"; [ ! -d "$kbuild/var/lib/dpkg" ] || rig_root_versions "$kbuild" | sed 's/^/kbuild /'; } > "$dir/versions"
  rig_seal "$entry" "${parts[@]}"
  rig_prune "$entry"
  rig_link "$entry" "$link"
fi
echo "$dir"
