#!/usr/bin/env bash
# Prepares the VM test rig once (cached): Debian's kernel package (linux-image-amd64's current
# image, from the apt registry: downloaded and unpacked, never installed on the host) and its
# module index (depmod); the guest's root filesystem, a minimal Debian 12 (debootstrap from the
# same registry, with systemd, udev and what the package depends on) as an ext4 disk image; and
# an initramfs of busybox, the virtio/ext4/9p modules and scripts/vm/init.
#
#   scripts/vm/prepare.sh [DIR]        (default .build-vm; prints DIR on its last line)
#
# Needs root (debootstrap), apt-get, debootstrap, e2fsprogs, qemu-system-x86 and busybox-static
# (scripts/setup.sh installs them). DEBIAN_MIRROR overrides http://deb.debian.org/debian.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-.build-vm}
if [ "$(dpkg --print-architecture)" != amd64 ]; then
  echo "prepare.sh: the guest rig runs Debian's amd64 kernel under qemu-system-x86_64; skipped on $(dpkg --print-architecture)" >&2
  exit 0
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ ! -f "$dir/kernel/ready" ]; then
  image=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -1)
  [ -n "$image" ] || { echo "prepare.sh: apt knows no linux-image-amd64 (apt-get update first)" >&2; exit 1; }
  rm -rf "$dir/kernel" "$dir/download"
  mkdir -p "$dir/download" "$dir/kernel"
  (cd "$dir/download" && apt-get download "$image" 2>&1 | grep -v "^W: Download is performed unsandboxed" || true)
  deb=$(ls "$dir/download/"*.deb)
  dpkg-deb -x "$deb" "$dir/kernel"
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
# the service's hardening).
packages=systemd,systemd-sysv,udev,kmod,apt,i2c-tools,alsa-utils,iproute2,procps,util-linux,libiio0,libgps28,libasound2,libmosquitto1,libzstd1,zlib1g,libsystemd0,dbus,bluez,bluez-test-tools,python3-dbus,python3-gi,chrony
if [ ! -f "$dir/root.ext4" ] || [ "$(cat "$dir/root.packages" 2>/dev/null)" != "$packages" ]; then
  [ "$(id -u)" = 0 ] || { echo "prepare.sh: debootstrap needs root; the guest image is not built" >&2; exit 1; }
  rm -rf "$dir/rootfs" "$dir/root.ext4"
  debootstrap --variant=minbase --include="$packages" bookworm "$dir/rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" > "$dir/debootstrap.log" 2>&1 ||
    { tail -20 "$dir/debootstrap.log" >&2; exit 1; }
  rm -f "$dir/rootfs/var/cache/apt/archives/"*.deb
  echo vm > "$dir/rootfs/etc/hostname"
  # Room for what a test installs (the package unpacks to about 170 MB).
  size=$(( $(du -sm "$dir/rootfs" | cut -f1) + 1024 ))
  mkfs.ext4 -q -F -L vmroot -O ^metadata_csum -d "$dir/rootfs" "$dir/root.ext4" "${size}M"
  rm -rf "$dir/rootfs"
  echo "$packages" > "$dir/root.packages"
fi
if [ ! -f "$dir/initramfs.cpio.gz" ] || [ scripts/vm/init -nt "$dir/initramfs.cpio.gz" ] || [ scripts/vm/prepare.sh -nt "$dir/initramfs.cpio.gz" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work"/{bin,proc,sys,dev,newroot,modules}
  cp /bin/busybox "$work/bin/busybox"
  order="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk crc16 mbcache jbd2 crc32c_generic ext4 netfs fscache 9pnet 9pnet_virtio 9p"
  for m in $order; do
    f=$(find "$dir/kernel/lib/modules/$release" -name "$m.ko" | head -1)
    [ -n "$f" ] || { echo "prepare.sh: no module $m in $release" >&2; exit 1; }
    cp "$f" "$work/modules/$m.ko"
  done
  echo "$order" > "$work/modules/order"
  install -m 0755 scripts/vm/init "$work/init"
  (cd "$work" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$dir/initramfs.cpio.gz.new"
  mv "$dir/initramfs.cpio.gz.new" "$dir/initramfs.cpio.gz"
fi
echo "$dir"
