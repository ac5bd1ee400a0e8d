#!/usr/bin/env bash
# The gait peer (issue 13): Mobilise-D's reference pipeline, PyPI mobgap 1.2.0, and recorderd's gait
# analysis (the release benchmark, BENCH_ONLY=gait) on the lower-back walks of
# Tests/Fixtures/imu/mobgap, both scored against the INDIP reference's initial contacts and their
# sides (left / right), and mobgap's stride length and walking speed on the INDIP reference bouts
# (Benchmarks/gait/mobgap_speed.py; recorderd's are WalkingSpeedAccuracyTests'), and what a perfect
# detector scores (INDIP's own contacts, Benchmarks/gait/reference_contacts.py); then the frontier (BENCH_ONLY=gait-frontier): 54,000 settings of recorderd's
# contact detector and bout rules, each scored beside mobgap's figures on every daily-living trial.
# Not part of CI (mobgap pulls a heavy Python stack): it makes its own virtual environment in
# .build/gait-venv. Prints a Markdown table for BENCHMARKS.md.
#
#   scripts/gait-reference.sh [OUTPUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/gait-reference}
venv=.build/gait-venv
mkdir -p "$out"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import mobgap' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q mobgap==1.2.0
fi
fixtures=Tests/Fixtures/imu/mobgap
"$venv/bin/python" Benchmarks/gait/mobgap_pipeline.py "$fixtures" "$out/mobgap.json"
"$venv/bin/python" Benchmarks/gait/mobgap_speed.py "$fixtures" "$out/mobgap-speed.json"
# mobgap's turns: kept as Tests/Fixtures/imu/mobgap/mobgap_turns.json (TurnAgreementTests); a
# difference here means mobgap changed.
"$venv/bin/python" Benchmarks/gait/mobgap_turns.py "$fixtures" "$out/mobgap_turns.json"
diff -q "$out/mobgap_turns.json" "$fixtures/mobgap_turns.json" || echo "mobgap's turns differ from the fixture's"
swift build -c release --product RecorderBenchmarks >/dev/null
BENCH_ONLY=gait BENCH_GAIT_OUTPUT="$out/recorderd.json" .build/release/RecorderBenchmarks | grep '^gait'
# A perfect detector: INDIP's own contacts, scored as a detector's (the "indip" rows), and
# Mobilise-D's stride length and speed on the straight walks from them.
"$venv/bin/python" Benchmarks/gait/reference_contacts.py "$fixtures" "$out/indip.json"
python3 Benchmarks/gait/score.py "$fixtures/reference_initial_contacts.json" --sides "$fixtures/reference_sides.json" \
  "mobgap=$out/mobgap.json" "recorderd=$out/recorderd.json"
python3 Benchmarks/gait/score.py "$fixtures/reference_initial_contacts.json" "indip=$out/indip.json"
BENCH_ONLY=gait-frontier BENCH_GAIT_PEER="$out/mobgap.json" .build/release/RecorderBenchmarks | grep '^gait-frontier'
