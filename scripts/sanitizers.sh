#!/usr/bin/env bash
# The test suite under ThreadSanitizer and AddressSanitizer.
#
#   scripts/sanitizers.sh [thread|address]...   default: both
#
# CI runs `thread` over the suites where concurrency lives (TSAN_SKIP below: not the pure
# computations and file formats, which start no thread of recorderd's), after `swift test`;
# AddressSanitizer runs in CI through the fuzzers (scripts/fuzz.sh: every parser and codec with
# unsafe pointers, under ASan and libFuzzer). `address` here runs the whole suite under ASan
# (before a release, or after a change to code with unsafe pointers the fuzzers do not reach).
# SANITIZER_SKIP=REGEX replaces a kind's skip list (an empty one runs everything);
# SANITIZER_PHASE=build (the checks and the build) or test (the suite only) splits `thread` for
# CI, which times the two apart.
#
# Every process counts, not only the test runner: TSAN_OPTIONS/ASAN_OPTIONS send each report to
# a file of its own (log_path), so races in the recorderd executables the tests start are caught
# too, and any report fails the run. TSan first proves it works here: a deliberate race must be
# reported, and the same counter under a pthread lock (what LockedValue uses) must not be.
#
# Both run the suite serially (--no-parallel): TSan's 5-15x and ASan's 2-3x slowdown on 2 cores
# would otherwise turn the real-time tests' deadlines into failures (ASan in parallel did: a full
# disk's stop, a sound server's restart, systemd's STOPPING=1 and the gait summaries all came
# seconds late once the suite spawned a few more instrumented processes at its start). It skips AudioRealTimeTests: libjack's own threads
# end "with ignores enabled" under TSan, a fatal TSan error inside the JACK client library, not in
# recorderd (ASan runs them).
set -euo pipefail
cd "$(dirname "$0")/.."
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(thread address)
reports=$(mktemp -d)
# Reports are printed however the run ends (a test that failed because of a report — a process
# exiting with TSan's status 66 — shows the report itself).
show_reports() {
  if compgen -G "$reports/*" > /dev/null; then
    echo "sanitizers: reports from $(ls "$reports" | wc -l) process(es):" >&2
    cat "$reports"/* >&2
  fi
  rm -rf "$reports"
}
trap show_reports EXIT
export SWIFT_BACKTRACE=enable=no
export CI=${CI:-true}
# Left out under TSan (all of them run in the plain suite): suites without concurrency of
# recorderd's own — JSON, decimals and the model; the heart-rate notification parser; file formats (exports, plots, FHIR, the readers'
# agreement); the rules as pure types; the browser's page tests and the page's templates; the
# package's architecture — and the accuracy suites, which drive the pipelines other suites drive
# with other data (gait, sway and fusion against references and physics); and four repetitions of
# what other tests do once under TSan (a hundred kill -9s, twenty kills mid-upload, every
# configuration number at its limit, the demo). CI's budget (docs/testing.md, "CI") is why: they took 190 s
# of TSan's 740. Also two that spend their time without threads of recorderd's: frames written in
# slices and one by one, compared byte for byte (32 s under TSan, single-threaded),
# --check-config's printed configuration (13 s of short-lived processes that start no recorder),
# and the RabbitMQ cluster's node killed mid-upload (a minute of three brokers starting; the fleet
# link's threads are the other fleet tests').
# Whole test targets it skips are not compiled either (Package.swift reads RECORDERD_LEAVE_OUT),
# nor are the benchmarks.
TSAN_LEAVE_OUT=ArchitectureTests,DeviceTests,RecorderModelTests,RecorderFHIRTests,RecorderExportTests,BLESensorsTests
TSAN_SKIP="^(${TSAN_LEAVE_OUT//,/|})\\."'|[./](CSVExportTests|MCAPExportTests|SageExportTests|ClinicalExportTests|InstallTests|WebPageTests|PageEscapingTests|RequestFramingTests|WebAccessTests|InitialContactAccuracyTests|WalkingSpeedAccuracyTests|StepSideAccuracyTests|SwayMeasuresTests|WalkingMeasuresTests|TurnDetectorTests|GaitRulesTests|GaitTrackerTests|GaitRecordsTests|MahonyFilterTests|AccelerationRejectionTests|HardIronEstimatorTests|RealWalkFusionTests|DeviceMotionFuserTests|IIOSampleFormatTests|IIOUdevRulesTests|TaskRunRulesTests|ControlConnectionStateTests|WatchdogPolicyTests|MountMatrixTests|DeviceMotionPhysicsTests|GaitSwayTests|aRealWalkGivesItsStepsAndASummaryAsTheStepFinishes|aTurnedSensorFindsTheSameStepsThroughTheRecording|aHundredKillNinesLoseAtMostASecondEach|anUploadSurvivesTwentyKillsOfRecorderd|aNodeKilledMidUploadCostsOnlyTheChunksInFlight|configurationNumbersAtAndPastTheirLimits|recorderctlDemoRunsTheGaitTaskOnReplayedData|WalkingTestScoringTests|TurnAgreementTests|ClinicalTaskFileTests|framesAddedInSlicesWriteWhatTheyWriteOneByOne|checkConfigPrintsTheEffectiveConfigurationOrEveryProblem)\b'

# Builds of their own, never debugged: line tables only (reports keep file and line; the index
# store stays: test discovery on Linux reads it).
lean=(-Xswiftc -gline-tables-only)

for kind in "${kinds[@]}"; do
  case "$kind" in
    thread)
      if [ "${SANITIZER_PHASE:-build}" != test ]; then
        check=$(mktemp -d)
        swiftc -sanitize=thread -o "$check/race" scripts/sanitizer-checks/race.swift
        swiftc -sanitize=thread -o "$check/locked" scripts/sanitizer-checks/locked.swift
        if "$check/race" > "$check/race.out" 2>&1; then
          echo "sanitizers: TSan did not report a deliberate race; its clean runs would prove nothing" >&2; exit 1
        fi
        grep -Eq "WARNING: ThreadSanitizer: (data race|Swift access race)" "$check/race.out" || { cat "$check/race.out" >&2; exit 1; }
        "$check/locked" > "$check/locked.out" 2>&1 || { echo "sanitizers: TSan reported the pthread-locked counter:" >&2; cat "$check/locked.out" >&2; exit 1; }
        echo "sanitizers: TSan sees a deliberate race and not a pthread-locked counter"
        rm -rf "$check"
        RECORDERD_LEAVE_OUT=$TSAN_LEAVE_OUT,benchmarks swift build --build-tests --sanitize=thread --scratch-path .build-tsan "${lean[@]}"
      fi
      [ "${SANITIZER_PHASE:-test}" != build ] || continue
      export TSAN_OPTIONS="log_path=$reports/tsan:halt_on_error=0:suppressions=$PWD/scripts/sanitizer-checks/tsan.supp"
      skip=${SANITIZER_SKIP-$TSAN_SKIP}
      # (The targets left out of the build are left out here too: the same manifest, no rebuild.)
      RECORDERD_LEAVE_OUT=$TSAN_LEAVE_OUT,benchmarks swift test --sanitize=thread --scratch-path .build-tsan "${lean[@]}" --no-parallel \
        --skip AudioRealTimeTests ${skip:+--skip "$skip"}
      unset TSAN_OPTIONS
      ;;
    address)
      export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=0"
      swift build --build-tests --sanitize=address --scratch-path .build-asan "${lean[@]}"
      swift test --sanitize=address --scratch-path .build-asan "${lean[@]}" --no-parallel ${SANITIZER_SKIP:+--skip "$SANITIZER_SKIP"}
      unset ASAN_OPTIONS
      ;;
    *) echo "usage: $0 [thread|address]..." >&2; exit 64 ;;
  esac
done
if compgen -G "$reports/*" > /dev/null; then
  exit 1
fi
echo "sanitizers: ${kinds[*]}: no report"
