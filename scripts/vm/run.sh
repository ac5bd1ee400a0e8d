#!/usr/bin/env bash
# Boots one VM test guest: Debian's kernel under qemu (TCG; the rig's architecture), the rig's
# Debian root (writes discarded), systemd as PID 1 (scripts/vm/init), which runs SHARE/script as
# root from the folder SHARE (/vmtest inside; the script's output goes to SHARE/output, its exit
# status to SHARE/status, the console to SHARE/console.log) and powers off. The guest tests (VMGuest) and
# scripts/vm/polled-benchmark.sh boot their guests through it.
#
#   scripts/vm/run.sh SHARE [MEMORY_MB [QEMU_ARGUMENT...]]
#
# Arguments after the memory go to qemu as they are: the two-guest Bluetooth test joins its guests'
# second and third serial ports (ttyS1, ttyS2) with -serial chardev sockets.
#
# qemu replaces this script (exec): the caller's PID is qemu's, for its wall-clock limit.
# Needs the rig (scripts/vm/prepare.sh; RECORDERD_VM_RIG, default .build-vm).
set -euo pipefail
share=$1
memory=${2:-1024}
shift $(( $# < 2 ? $# : 2 ))
rig=${RECORDERD_VM_RIG:-$(cd "$(dirname "$0")/../.." && pwd)/.build-vm}
[ -x "$share/script" ] || { echo "run.sh: no executable $share/script" >&2; exit 64; }
[ -f "$rig/root.ext4" ] && [ -f "$rig/initramfs.cpio.gz" ] || { echo "run.sh: no rig in $rig (scripts/vm/prepare.sh)" >&2; exit 1; }
kernel=$rig/kernel
# The rig's architecture (prepare.sh --arch): amd64 on a PC; arm64 on qemu's `virt` board with
# the Raspberry Pi 4's core (Cortex-A72), its console on the board's PL011 (one serial port only).
case "$(cat "$rig/arch" 2>/dev/null || echo amd64)" in
  amd64) machine=(qemu-system-x86_64) console=ttyS0 ;;
  arm64) machine=(qemu-system-aarch64 -M virt -cpu cortex-a72) console=ttyAMA0 ;;
  *) echo "run.sh: unknown rig architecture in $rig/arch" >&2; exit 1 ;;
esac
exec "${machine[@]}" -accel tcg -m "$memory" -smp 2 -no-reboot -display none -monitor none \
  -serial "file:$share/console.log" \
  -kernel "$kernel/vmlinuz" -initrd "$rig/initramfs.cpio.gz" \
  -append "console=$console rdinit=/init panic=-1 loglevel=4 systemd.show_status=0" \
  -drive "file=$rig/root.ext4,if=virtio,format=raw,snapshot=on" \
  -virtfs "local,path=$kernel/lib/modules,mount_tag=modules,security_model=none,readonly=on" \
  -virtfs "local,path=$share,mount_tag=vmtest,security_model=none" "$@"
