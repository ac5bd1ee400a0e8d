#!/usr/bin/env bash
# Export throughput and peak memory (issue 14): a 1-hour 100 Hz 9-axis run, recorded by a release
# recorderd from a replay device played at 60× (a real walk with a magnetometer added:
# Benchmarks/export/make_nine_axis.py), exported to csv, mcap, sage and fhir by a release recorderctl
# and by a Python peer doing the same job (Benchmarks/export/peer_*.py: json/csv, PyPI mcap's
# writer, json/zipfile, json), each timed by /usr/bin/time (elapsed, user+system CPU, peak RSS).
# Prints a Markdown table for BENCHMARKS.md. Not part of CI (a minute of recording).
#
#   scripts/export-benchmark.sh [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-.build/export-benchmark}
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
swift build -c release --product recorderd >/dev/null
swift build -c release --product recorderctl >/dev/null
bin=$(swift build -c release --show-bin-path)
python3 Benchmarks/export/make_nine_axis.py Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test11_Trial1.csv "$work/nine-axis.csv"
cat > "$work/recorderd.json" <<JSON
{"socket": "$work/control.sock", "dataDirectory": "$work/data", "ringSeconds": 30,
 "devices": [{"name": "imu0", "kind": "replay", "file": "$work/nine-axis.csv", "frequency": 100, "speed": 60, "loop": true,
   "columns": {"accelerometer": ["acc_x", "acc_y", "acc_z"], "gyro": ["gyr_x", "gyr_y", "gyr_z"], "magnetometer": ["mag_x", "mag_y", "mag_z"]},
   "units": {"accelerometer": "g", "gyro": "deg/s", "magnetometer": "uT"}}]}
JSON
cat > "$work/hour.json" <<JSON
{"identifier": "hour", "steps": [{"identifier": "record", "duration": 60}],
 "asyncActions": [{"identifier": "motion", "type": "motion", "recorderTypes": ["accelerometer", "gyro", "magnetometer"],
   "startStepIdentifier": "record", "stopStepIdentifier": "record"}]}
JSON
"$bin/recorderd" --config "$work/recorderd.json" --log-level error &
daemon=$!
trap 'kill $daemon 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$work/control.sock" ] && break; sleep 0.1; done
"$bin/recorderctl" run "$work/hour.json" --auto --socket "$work/control.sock" > "$work/run.log"
kill $daemon; wait $daemon || true
run=$(dirname "$(find "$work/data" -name taskResult.json | head -1)")
records=$(wc -l < "$run/motion.jsonl")
size=$(du -m "$run/motion.jsonl" | cut -f1)
read -r epoch uptime < <(python3 -c "
import json,datetime,sys
r=json.load(open('$run/taskResult.json')); f=[a for a in r['asyncResults'] if a['type']=='file'][0]
print(datetime.datetime.fromisoformat(f['startDate']).timestamp(), f['startUptime'])")
echo "run: $records records ($size MiB of JSON lines) in $run"
measure() { # name command...: elapsed s, CPU s, peak RSS MiB
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" > /dev/null
  read -r elapsed user sys rss < "$work/time"
  python3 -c "e,c,m=$elapsed,$user+$sys,$rss/1024; print(f'{e:.2f} {c:.2f} {m:.0f} {$records/e/1e6:.3f}')"
}
echo "| format | tool | elapsed (s) | CPU (s) | peak RSS (MiB) | M records/s | ratio (peer/recorderd elapsed) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for format in csv mcap sage fhir; do
  ours=$(measure "$bin/recorderctl" export "$run" --format "$format" -o "$work/out.$format")
  case $format in
    csv) peer=$(measure python3 Benchmarks/export/peer_csv.py "$run/motion.jsonl" "$work/peer.csv") ;;
    mcap) peer=$(measure python3 Benchmarks/export/peer_mcap.py "$run/motion.jsonl" "$work/peer.mcap" "$epoch" "$uptime") ;;
    sage) peer=$(measure python3 Benchmarks/export/peer_sage.py "$run" "$work/peer.zip") ;;
    fhir) peer=$(measure python3 Benchmarks/export/peer_fhir.py "$run" "$work/peer.fhir.json") ;;
  esac
  read -r oe oc om orate <<< "$ours"
  read -r pe pc pm prate <<< "$peer"
  ratio=$(python3 -c "print(f'{$pe/$oe:.1f}')")
  echo "| $format | recorderctl export | $oe | $oc | $om | $orate | $ratio× |"
  echo "| $format | Python peer | $pe | $pc | $pm | $prate | |"
done
