#!/usr/bin/env bash
# services-memory.sh [BIN_DIR]: RSS and PSS (MiB) of recorderd and of its children (recorderd-services)
# 3 s after start, with one replay device and the web page on (one page and one /api/status
# served). BIN_DIR defaults to the release build. Not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release}; work=$(mktemp -d); port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
cat > $work/r.json <<JSON
{"socket": "$work/control.sock", "dataDirectory": "$work/data", "http": {"listen": "127.0.0.1:$port"},
 "devices": [{"name": "imu0", "kind": "replay", "file": "$PWD/Tests/Fixtures/imu/mobgap/MS/001/TimeMeasure1_Test11_Trial1.csv",
   "frequency": 100, "speed": 1, "loop": true, "columns": {"accelerometer": ["acc_x", "acc_y", "acc_z"], "gyro": ["gyr_x", "gyr_y", "gyr_z"]},
   "units": {"accelerometer": "g", "gyro": "deg/s"}}]}
JSON
$bin/recorderd --config $work/r.json --log-level error & d=$!
for _ in $(seq 100); do curl -s -o /dev/null http://127.0.0.1:$port/ && break; sleep 0.1; done
curl -s -o /dev/null http://127.0.0.1:$port/api/status; sleep 3
rss() { awk '/VmRSS/ {print $2/1024}' /proc/$1/status; }
pss() { awk '/^Pss:/ {print $2/1024}' /proc/$1/smaps_rollup; }
out="recorderd RSS $(rss $d) PSS $(pss $d)"
for c in $(cat /proc/$d/task/*/children); do out="$out; child RSS $(rss $c) PSS $(pss $c)"; done
echo "$out"
kill $d; wait $d || true; rm -rf $work
