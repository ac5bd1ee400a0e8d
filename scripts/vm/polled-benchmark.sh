#!/usr/bin/env bash
# Polled IIO sampling in the guest (BENCHMARKS.md, "Polled IIO"): the release package installed in
# a fresh guest (scripts/vm/run.sh), a BMI160 bound by its real driver on i2c-stub and polled by
# recorderd at 100, 200 and 400 Hz for SECONDS each; then, at each rate, the peer
# (scripts/vm/poll-raw.c: the same six sysfs reads at the same absolute ticks, nothing else).
# For each: the achieved rate (samples / ticks), the jitter of the read times (steps between
# samples: p1, median, p99, standard deviation), and CPU per sample (recorderd: its sampling
# thread's schedstat; the peer: its own thread CPU time).
#
#   scripts/vm/polled-benchmark.sh [SECONDS]      default 20; needs root, the rig, and the
#                                                 release package (scripts/build-deb.sh;
#                                                 RECORDERD_DEB=PATH for another)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -ge 5 ] && [ "$seconds" -le 600 ] || { echo "polled-benchmark.sh: SECONDS: 5 to 600" >&2; exit 64; }
deb=${RECORDERD_DEB:-$(ls .build-deb/recorderd_*_amd64.deb 2> /dev/null | sort | tail -1)}
[ -n "$deb" ] || { echo "polled-benchmark.sh: no .build-deb/recorderd_*.deb (scripts/build-deb.sh)" >&2; exit 1; }
share=$(mktemp -d)
trap 'rm -rf "$share"' EXIT
cp "$deb" "$share/recorderd.deb"
cc=$(command -v clang || command -v cc)
"$cc" -O2 -o "$share/poll-raw" scripts/vm/poll-raw.c
cat > "$share/script" <<EOF
#!/bin/sh
set -u
seconds=$seconds
EOF
cat >> "$share/script" <<'EOF'
cd /vmtest
DEBIAN_FRONTEND=noninteractive apt-get install -y /vmtest/recorderd.deb > /dev/null 2>&1 || { echo "install failed"; exit 1; }
modprobe i2c-dev; modprobe i2c-stub chip_addr=0x68
bus=$(for d in /sys/bus/i2c/devices/i2c-*; do [ "$(cat $d/name)" = "SMBus stub driver" ] && basename $d; done); b=${bus#i2c-}
i2cset -y "$b" 0x68 0x00 0xd1 b; i2cset -y "$b" 0x68 0x41 0x03 b
modprobe bmi160_i2c; echo bmi160 0x68 > /sys/bus/i2c/devices/$bus/new_device; udevadm settle --timeout=30
i2cset -f -y "$b" 0x68 0x17 0x40 b
dev=$(ls -d /sys/bus/iio/devices/iio:device* | head -1)
echo "kernel $(uname -r); cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
sed -i 's|"devices": \[|"devices": [{"name": "bmi", "kind": "iio", "uri": "local:", "device": "bmi160", "frequency": 100},|' /etc/recorderd/recorderd.json
for rate in 100 200 400; do
  sed -i "s|\"device\": \"bmi160\", \"frequency\": [0-9]*|\"device\": \"bmi160\", \"frequency\": $rate|" /etc/recorderd/recorderd.json
  systemctl restart recorderd.service; recorderctl status > /dev/null || { echo "status failed"; exit 1; }
  started=$(recorderctl start bench-$rate --actions "[{\"identifier\": \"motion\", \"type\": \"motion\", \"device\": \"bmi\", \"recorderTypes\": [\"accelerometer\", \"gyro\"], \"frequency\": $rate}]") || { echo "start failed: $started"; exit 1; }
  uuid=$(echo "$started" | sed -n 1p); dir=$(echo "$started" | sed -n 2p)
  pid=$(systemctl show -p MainPID --value recorderd.service)
  tid=$(for t in /proc/$pid/task/*; do [ "$(cat $t/comm)" = iio.bmi ] && basename $t; done | head -1)
  cpu0=$(cut -d' ' -f1 /proc/$pid/task/$tid/schedstat)
  sleep "$seconds"
  cpu1=$(cut -d' ' -f1 /proc/$pid/task/$tid/schedstat)
  recorderctl finish "$uuid" > /dev/null
  cp "$dir/motion.jsonl" "/vmtest/recorderd-$rate.jsonl"
  echo "recorderd $rate thread_cpu_ns $((cpu1 - cpu0)) sensor $(cat $dev/in_accel_sampling_frequency)"
done
systemctl stop recorderd.service
for rate in 100 200 400; do
  /vmtest/poll-raw "$rate" "$seconds" $dev/in_accel_x_raw $dev/in_accel_y_raw $dev/in_accel_z_raw \
    $dev/in_anglvel_x_raw $dev/in_anglvel_y_raw $dev/in_anglvel_z_raw > "/vmtest/peer-$rate.txt"
done
echo done
EOF
chmod +x "$share/script"
echo "polled-benchmark: guest with $(basename "$deb"), $seconds s per rate" >&2
timeout $((seconds * 6 + 400)) scripts/vm/run.sh "$share" || true
[ "$(cat "$share/status" 2> /dev/null)" = 0 ] && grep -q '^done' "$share/output" || { cat "$share/output" "$share/console.log" >&2; exit 1; }
python3 - "$share" <<'PY'
import json, statistics, sys, os
share = sys.argv[1]
out = open(os.path.join(share, "output")).read().splitlines()
print(out[0])
cpu = {int(l.split()[1]): l.split() for l in out if l.startswith("recorderd ")}
def stats(times, rate):
    steps = sorted(b - a for a, b in zip(times, times[1:]))
    pick = lambda q: steps[min(len(steps) - 1, int(q * len(steps)))] * 1e3
    return pick(0.01), pick(0.5), pick(0.99), statistics.pstdev(steps) * 1e3
print("| rate | poller | samples / ticks | achieved | step p1 / median / p99 (ms) | step sd (ms) | CPU per sample (µs, guest) |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for rate in (100, 200, 400):
    records = [json.loads(l) for l in open(os.path.join(share, f"recorderd-{rate}.jsonl")) if l.strip()]
    samples = [r["uptime"] for r in records if r.get("sensorType") == "accelerometer" and "x" in r]
    dropped = sum(r.get("droppedSamples", 0) for r in records if r.get("sensorType") == "accelerometer" and "droppedSamples" in r)
    ticks = round((samples[-1] - samples[0]) * rate) + 1
    p1, p50, p99, sd = stats(samples, rate)
    thread_ns = int(cpu[rate][3])
    print(f"| {rate} Hz | recorderd | {len(samples)} + {dropped} dropped / {ticks} | {100 * len(samples) / ticks:.2f} % | {p1:.2f} / {p50:.2f} / {p99:.2f} | {sd:.3f} | {thread_ns / 1e3 / len(samples):.0f} (sampling thread; sensor at {cpu[rate][5]} Hz) |")
    peer = open(os.path.join(share, f"peer-{rate}.txt")).read().split("\n")
    head = peer[0].split()
    times = [float(x) for x in peer[1:] if x.strip()]
    n, missed, peer_ns = int(head[1]), int(head[3]), float(head[5])
    p1, p50, p99, sd = stats(times, rate)
    print(f"| {rate} Hz | peer (poll-raw) | {n} + {missed} missed / {n + missed} | {100 * n / (n + missed):.2f} % | {p1:.2f} / {p50:.2f} / {p99:.2f} | {sd:.3f} | {peer_ns / 1e3 / n:.0f} |")
    print(f"|  | ratio recorderd / peer, CPU per sample |  |  |  |  | {thread_ns / len(samples) / (peer_ns / n):.2f} |")
PY
