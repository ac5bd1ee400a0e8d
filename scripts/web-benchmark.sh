#!/usr/bin/env bash
# The web page's live plot (issue 18): latency from sample to browser (p50/p99) at 100 Hz and the
# daemon's extra CPU with one Devices page open, beside the terminal's live view (`recorderctl
# tail` at the page's 25 records/s a type) in the same run. A release recorderd replays a real
# walk at 100 Hz; each phase lasts SECONDS (default 30): nothing attached, the page open
# (headless Chromium: Benchmarks/web/live_page.py), recorderctl tail attached. The daemon's CPU
# is its utime+stime from /proc over each phase, with recorderd-services' (the page). Not part of CI.
#
#   scripts/web-benchmark.sh [SECONDS] [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
work=${2:-.build/web-benchmark}
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
swift build -c release --product recorderd >/dev/null
swift build -c release --product recorderd-services >/dev/null  # the web page and the fleet link
swift build -c release --product recorderctl >/dev/null
bin=$(swift build -c release --show-bin-path)
port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
cat > "$work/recorderd.json" <<JSON
{"socket": "$work/control.sock", "dataDirectory": "$work/data", "http": {"listen": "127.0.0.1:$port"},
 "devices": [{"name": "imu0", "kind": "replay", "file": "$PWD/Tests/Fixtures/imu/mobgap/MS/001/TimeMeasure1_Test11_Trial1.csv",
   "frequency": 100, "speed": 1, "loop": true,
   "columns": {"accelerometer": ["acc_x", "acc_y", "acc_z"], "gyro": ["gyr_x", "gyr_y", "gyr_z"]},
   "units": {"accelerometer": "g", "gyro": "deg/s"}}]}
JSON
"$bin/recorderd" --config "$work/recorderd.json" --log-level error &
daemon=$!
trap 'kill $daemon 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$work/control.sock" ] && break; sleep 0.1; done
ticks=$(getconf CLK_TCK)
# recorderd's CPU and its services process's (the page runs there).
cpu() {
  local total children c
  total=$(awk '{print $14 + $15}' "/proc/$daemon/stat")
  children=$(cat /proc/"$daemon"/task/*/children 2>/dev/null || true)
  for c in $children; do total=$((total + $(awk '{print $14 + $15}' "/proc/$c/stat" 2>/dev/null || echo 0))); done
  echo "$total"
}
# phase NAME COMMAND...: runs COMMAND for the phase (or waits), prints "NAME cpu% of one core".
phase() {
  local name=$1; shift
  local before after start end
  before=$(cpu); start=$(date +%s.%N)
  "$@"
  after=$(cpu); end=$(date +%s.%N)
  python3 -c "print('$name', round(100 * ($after - $before) / $ticks / ($end - $start), 2))"
}
# The device samples only while something reads it: a recorderctl tail of gyro keeps it sampling
# in every phase, so the phases differ by the live view alone.
"$bin/recorderctl" tail imu0 --socket "$work/control.sock" --sensor gyro --rate 1 > /dev/null &
keep=$!
trap 'kill $keep $daemon 2>/dev/null || true' EXIT
sleep 2
idle=$(phase idle sleep "$seconds")
page=$(phase page python3 Benchmarks/web/live_page.py "http://127.0.0.1:$port" "$seconds" | tee "$work/page.out")
latency=$(grep '^{' "$work/page.out" | head -1)
page=$(grep '^page' "$work/page.out")
tail_cpu=$(phase tail bash -c "timeout $seconds $bin/recorderctl tail imu0 --socket $work/control.sock --rate 25 > /dev/null; true")
kill $keep 2>/dev/null || true
echo "$idle"; echo "$page"; echo "$tail_cpu"; echo "latency $latency"
python3 - "$idle" "$page" "$tail_cpu" <<'PY'
import sys
idle, page, tail = (float(a.split()[1]) for a in sys.argv[1:4])
print(f"| daemon CPU, % of one core | idle {idle:.2f} | page open {page:.2f} (+{page - idle:.2f}) | recorderctl tail {tail:.2f} (+{tail - idle:.2f}) | "
      f"page/tail {page / tail:.2f} |")
PY
