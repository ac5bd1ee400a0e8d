#!/usr/bin/env bash
# Coverage-guided fuzzing of recorderd's own code with libFuzzer (-sanitize=fuzzer) and
# AddressSanitizer: the control protocol (request decoder, router, connection flow control — a
# real in-process recorderd over its real socket) and the configuration decoders.
#
#   scripts/fuzz.sh [SECONDS]         each target for SECONDS (default 60); CI runs this
#   FUZZ_JOBS=2 scripts/fuzz.sh 3600  longer, with parallel jobs
#
# Known crash inputs (Fuzz/Regressions) are replayed first. A crash, a stall or a malformed
# answer fails the script; its input is left in .build-fuzz-work/artifacts (add it to
# Fuzz/Regressions once fixed). New corpus entries go to .build-fuzz-work/corpus, never into the
# seed corpus in Fuzz/Corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
work=.build-fuzz-work
mkdir -p "$work/artifacts"
# Swift's backtracer would take over the crash signals libFuzzer reports.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
# SwiftPM passes each --sanitize to swiftc as its own -sanitize= option, and the Swift driver
# keeps only the last: without the combined -Xswiftc option the Swift code gets no coverage
# instrumentation at all (libFuzzer then fuzzes blind).
flags=(--package-path Fuzz --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address)
swift build "${flags[@]}"
bin=$(swift build "${flags[@]}" --show-bin-path)
# FUZZ_BUILD_ONLY=1: build only (CI times the build apart, then fuzzes beside the TSan suite).
[ -z "${FUZZ_BUILD_ONLY:-}" ] || exit 0
for target in requests configuration records heartRate; do
  exe="$bin/Fuzz$(tr '[:lower:]' '[:upper:]' <<< "${target:0:1}")${target:1}"
  mkdir -p "$work/corpus/$target"
  regressions=(Fuzz/Regressions/$target/*)
  if [ -e "${regressions[0]}" ]; then
    echo "fuzz: replaying ${#regressions[@]} known $target inputs"
    "$exe" "${regressions[@]}"
  fi
  echo "fuzz: $target for $seconds s"
  "$exe" -max_total_time="$seconds" -max_len=16384 -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
    -jobs="${FUZZ_JOBS:-1}" -workers="${FUZZ_JOBS:-1}" \
    -dict="Fuzz/$target.dict" -artifact_prefix="$work/artifacts/$target-" \
    "$work/corpus/$target" "Fuzz/Corpus/$target"
done
echo "fuzz: no crash"
