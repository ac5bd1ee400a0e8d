#!/usr/bin/env bash
# The package's footprint on its machine (BENCHMARKS.md, "The package on the Pi"): the release
# package installed by apt in a fresh guest of the rig's architecture (scripts/vm/run.sh), the
# example configuration as the package installs it (the bundled walk replayed at 100 Hz), the
# service started by its socket; then a task run recording fused motion and gait for SECONDS
# with a live subscriber (`recorderctl tail`). Prints what the package takes on disk (the
# executables, the private Swift runtime, the rest) and recorderd's resident memory at the end
# (/proc/PID/smaps_rollup: RSS and its anonymous part), three starts, each line.
#
#   scripts/vm/footprint.sh [--arch arm64] [SECONDS]     default amd64, 20 s; needs root, the rig
#                                                        (scripts/vm/prepare.sh) and the release
#                                                        package (scripts/build-deb.sh; RECORDERD_DEB)
set -euo pipefail
cd "$(dirname "$0")/../.."
arch=amd64
[ "${1:-}" != --arch ] || { arch=$2; shift 2; }
seconds=${1:-20}
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -ge 5 ] && [ "$seconds" -le 600 ] || { echo "footprint.sh: SECONDS: 5 to 600" >&2; exit 64; }
case "$arch" in
  amd64) rig=.build-vm ;;
  arm64) rig=.build-vm-arm64 ;;
  *) echo "footprint.sh: --arch amd64 or arm64" >&2; exit 64 ;;
esac
deb=${RECORDERD_DEB:-$(ls .build-deb/recorderd_*_"$arch".deb 2> /dev/null | sort | tail -1)}
[ -n "$deb" ] || { echo "footprint.sh: no .build-deb/recorderd_*_$arch.deb (scripts/build-deb.sh)" >&2; exit 1; }
share=$(mktemp -d)
trap 'rm -rf "$share"' EXIT
cp "$deb" "$share/recorderd.deb"
cat > "$share/script" <<EOF
#!/bin/sh
set -u
seconds=$seconds
EOF
cat >> "$share/script" <<'EOF'
DEBIAN_FRONTEND=noninteractive apt-get install -y /vmtest/recorderd.deb > /dev/null 2>&1 || { echo "install failed"; exit 1; }
echo "kernel $(uname -r) $(uname -m); installed-size $(dpkg-query -W -f='${Installed-Size}' recorderd) KiB"
echo "disk executables $(du -ck /usr/bin/recorderd /usr/bin/recorderd-services /usr/bin/recorderctl | tail -1 | cut -f1) KiB;" \
  "runtime $(du -sk /usr/lib/recorderd | cut -f1) KiB in $(ls /usr/lib/recorderd | wc -l) libraries;" \
  "share $(du -sk /usr/share/recorderd | cut -f1) KiB"
for start in 1 2 3; do
  systemctl restart recorderd.socket; recorderctl status > /dev/null || { echo "status failed"; exit 1; }
  started=$(recorderctl start footprint-$start --actions '[{"identifier": "motion", "type": "motion", "recorderTypes": ["accelerometer", "gyro"], "frequency": 100}, {"identifier": "gait", "type": "gait", "sensorLocation": "lowerBack"}]') \
    || { echo "start failed: $started"; exit 1; }
  uuid=$(echo "$started" | sed -n 1p)
  timeout "$seconds" recorderctl tail imu0 > /dev/null 2>&1 || true
  pid=$(systemctl show -p MainPID --value recorderd.service)
  echo "rss $start $(awk '/^Rss:/ {r = $2} /^Anonymous:/ {a = $2} END {printf "%.1f %.1f", r / 1024, a / 1024}' /proc/$pid/smaps_rollup) threads $(ls /proc/$pid/task | wc -l)"
  recorderctl finish "$uuid" > /dev/null
  systemctl stop recorderd.service recorderd.socket
done
echo done
EOF
chmod +x "$share/script"
echo "footprint: $arch guest with $(basename "$deb"), $seconds s a run" >&2
timeout $((seconds * 3 + 900)) env RECORDERD_VM_RIG="$(cd "$rig" && pwd)" scripts/vm/run.sh "$share" || true
[ "$(cat "$share/status" 2> /dev/null)" = 0 ] && grep -q '^done' "$share/output" || { cat "$share/output" "$share/console.log" >&2; exit 1; }
grep -v '^rss\|^done' "$share/output"
awk '/^rss/ {print "recorderd RSS, start " $2 ": " $3 " MiB (anonymous " $4 " MiB), " $6 " threads"}' "$share/output"
