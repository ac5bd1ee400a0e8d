#!/usr/bin/env bash
# What a process costs in resident memory before it records anything (issue 17's RSS target):
# minimal programs of the parts recorderd is made of, each measured 1.5 s after start from
# /proc/PID/smaps_rollup (RSS and its anonymous part), 3 starts each, the median printed.
# - swift-plain: the Swift runtime alone; swift-essentials: + FoundationEssentials (no ICU);
#   swift-foundation: + all of Foundation with ICU in use;
# - c-backends: libiio, libgps and libasound (the three backends' C libraries), each used once;
# - daemon-floor (Benchmarks/DaemonFloor, release): a daemon built as recorderd is, without
#   recorderd's code: FoundationEssentials, swift-nio serving a Unix socket, a ServiceGroup,
#   swift-log, ArgumentParser, Dispatch, the three C libraries used once, 30 s of 48 kHz audio.
# Compare with recorderd's own figures (`BENCH_ONLY=footprint` and `BENCH_ONLY=device`).
# Usage: scripts/memory-floor.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src=Benchmarks/MemoryFloor
for p in swift-plain swift-essentials swift-foundation; do swiftc -O -o "$out/$p" "$src/$p.swift"; done
cc -O2 -o "$out/c-backends" "$src/c-backends.c" -liio -lgps -lasound
swift build -c release --product DaemonFloor > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
cp "$(swift build -c release --show-bin-path 2> /dev/null)/DaemonFloor" "$out/daemon-floor"
measure() {
  local program=$1 runs=() pid
  for _ in 1 2 3; do
    "$out/$program" "${@:2}" > /dev/null 2>&1 &
    pid=$!
    sleep 1.5
    runs+=("$(awk '/^Rss:/ {r = $2} /^Anonymous:/ {a = $2} END {printf "%.1f %.1f", r / 1024, a / 1024}' "/proc/$pid/smaps_rollup")")
    kill "$pid" 2> /dev/null || true
    wait "$pid" 2> /dev/null || true
  done
  printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p | awk -v p="$program" '{printf "%-17s RSS %5.1f MiB (anonymous %.1f)\n", p, $1, $2}'
}
for p in swift-plain swift-essentials swift-foundation c-backends; do measure "$p"; done
measure daemon-floor --socket "$out/floor.sock"
