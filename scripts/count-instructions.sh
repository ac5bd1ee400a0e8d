#!/usr/bin/env bash
# Instructions (valgrind --tool=callgrind) to read one step.start and one task.start request with
# their params: recorderd's JSONParser + JSONValueDecoder against Foundation's JSONDecoder, in the
# same run. Counts, unlike times, repeat on this noisy VM. The difference between N=1001 and N=1
# runs is 1000 iterations' worth, without start-up.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp Benchmarks/InstructionCounts/parse.swift "$out/main.swift"
swiftc -O -module-name ParseCount -o "$out/parse" "$out/main.swift" Sources/RecorderModel/*.swift
count() {
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$out/parse" "$1" "$2" > /dev/null 2> "$out/log"
  grep -o 'Collected : [0-9]*' "$out/log" | grep -o '[0-9]*'
}
for side in ours foundation; do
  one=$(count "$side" 1)
  many=$(count "$side" 1001)
  echo "$side: $(( (many - one) / 1000 )) instructions per step.start + task.start pair"
done
