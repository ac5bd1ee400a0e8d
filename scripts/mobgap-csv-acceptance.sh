#!/usr/bin/env bash
# The CSV export, accepted by its user (issue 14): a real lower-back walk (mobgap's HA/001 straight
# walk, Tests/Fixtures/imu/mobgap) replayed through a release recorderd at its own pace, recorded,
# exported with `recorderctl export --format csv`, and fed to mobgap 1.2.0's GsdIluz -> IcdIonescu
# beside the source CSV (Benchmarks/export/mobgap_on_csv.py): the same initial contacts.
# Not part of CI (mobgap's Python stack; .build/gait-venv, made as scripts/gait-reference.sh does).
#
#   scripts/mobgap-csv-acceptance.sh [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-.build/mobgap-csv}
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
venv=.build/gait-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import mobgap' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q mobgap==1.2.0
fi
swift build -c release --product recorderd >/dev/null
swift build -c release --product recorderctl >/dev/null
bin=$(swift build -c release --show-bin-path)
walk=$PWD/Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test5_Trial1.csv
cat > "$work/recorderd.json" <<JSON
{"socket": "$work/control.sock", "dataDirectory": "$work/data",
 "devices": [{"name": "imu0", "kind": "replay", "file": "$walk", "frequency": 100, "speed": 1, "loop": true,
   "columns": {"accelerometer": ["acc_x", "acc_y", "acc_z"], "gyro": ["gyr_x", "gyr_y", "gyr_z"]},
   "units": {"accelerometer": "g", "gyro": "deg/s"}}]}
JSON
cat > "$work/walk.json" <<JSON
{"identifier": "walk", "steps": [{"identifier": "walking", "duration": 11}],
 "asyncActions": [{"identifier": "motion", "type": "motion", "startStepIdentifier": "walking", "stopStepIdentifier": "walking"}]}
JSON
"$bin/recorderd" --config "$work/recorderd.json" --log-level error &
daemon=$!
trap 'kill $daemon 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "$work/control.sock" ] && break; sleep 0.1; done
"$bin/recorderctl" run "$work/walk.json" --auto --socket "$work/control.sock" > "$work/run.log"
run=$(dirname "$(find "$work/data" -name taskResult.json | head -1)")
"$bin/recorderctl" export "$run" --format csv -o "$work/csv"
"$venv/bin/python" Benchmarks/export/mobgap_on_csv.py "$walk" "$work/csv/motion.csv"
