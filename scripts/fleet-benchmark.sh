#!/usr/bin/env bash
# The fleet link's benchmark (issue 16): upload throughput and CPU per MB of a 1-hour 100 Hz run
# over loopback, a fan-in of 50 recorderd to two shared collectors, and recorderd's memory with
# 1,000 runs queued in its outbox — each against mosquitto's own clients (or recorderd without
# mqtt) in the same run (Benchmarks/fleet/fleet_benchmark.py); and (issue 43) a fan-in of 200
# simulated Pis' 5-minute runs to two sharing collectors (MQTT 5) and to one collector per site
# (MQTT 3.1.1). Release builds; a real mosquitto on a free loopback port. Prints Markdown tables for
# BENCHMARKS.md. Not part of CI (several minutes).
#
#   scripts/fleet-benchmark.sh [WORK_DIR] [upload|fanin|outbox|fanin200]...
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-.build/fleet-benchmark}
shift || true
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
swift build -c release --product recorderd >/dev/null
swift build -c release --product recorderd-services >/dev/null  # the web page and the fleet link
swift build -c release --product recorderctl >/dev/null
swift build -c release --product FanInPis >/dev/null      # 200 simulated Pis' fleet links in one process
bin=$(swift build -c release --show-bin-path)
walk=$(pwd)/Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test11_Trial1.csv
short=$(pwd)/Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test5_Trial1.csv

# record NAME SPEED SECONDS: one run of a replayed real walk (accelerometer + gyroscope, 100 Hz)
# played at SPEED for SECONDS, in $work/NAME/data.
record() {
  local name=$1 speed=$2 seconds=$3 dir=$work/$1
  mkdir -p "$dir"
  cat > "$dir/recorderd.json" <<JSON
{"socket": "$dir/control.sock", "dataDirectory": "$dir/data", "ringSeconds": 30,
 "devices": [{"name": "imu0", "kind": "replay", "file": "$walk", "frequency": 100, "speed": $speed, "loop": true,
   "columns": {"accelerometer": ["acc_x", "acc_y", "acc_z"], "gyro": ["gyr_x", "gyr_y", "gyr_z"]},
   "units": {"accelerometer": "g", "gyro": "deg/s"}}]}
JSON
  cat > "$dir/task.json" <<JSON
{"identifier": "$name", "steps": [{"identifier": "record", "duration": $seconds}],
 "asyncActions": [{"identifier": "motion", "type": "motion", "recorderTypes": ["accelerometer", "gyro"],
   "startStepIdentifier": "record", "stopStepIdentifier": "record"}]}
JSON
  "$bin/recorderd" --config "$dir/recorderd.json" --log-level error &
  local daemon=$!
  for _ in $(seq 100); do [ -S "$dir/control.sock" ] && break; sleep 0.1; done
  "$bin/recorderctl" run "$dir/task.json" --auto --socket "$dir/control.sock" > "$dir/run.log"
  kill $daemon; wait $daemon || true
  echo "$name: $(find "$dir/data/runs" -name motion.jsonl -exec wc -l {} + | tail -1 | awk '{print $1}') lines, $(du -sm "$dir/data/runs" | cut -f1) MiB"
}
record hour 60 60
record minute 60 1
record short 1 1
record five 60 5
python3 Benchmarks/fleet/fleet_benchmark.py "$bin" "$work" "$work/hour/data" "$work/minute/data" "$work/short/data" "$work/five/data" "$short" "$@"
