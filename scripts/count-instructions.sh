#!/usr/bin/env bash
# Instructions (valgrind --tool=callgrind), which unlike times repeat on this noisy VM:
# - parse: one step.start and one task.start request with their params, recorderd's JSONParser +
#   JSONValueDecoder against Foundation's JSONDecoder in the same run;
# - fusion: one sample through a device's fusion (DeviceMotionFuser), against x-io's Fusion AHRS
#   (C, from PyPI imufusion's source distribution, built here) on the same samples;
# - gait: one sample of fused vertical acceleration through the contact detector and the
#   walking-bout rules (GaitAnalysis); its peer, mobgap, is Python and timed by gait-reference.sh;
# - export: one record of a 9-axis motion file through `recorderctl export`'s exporters (csv, mcap,
#   sage, fhir; the release ExportCount program), against the Python peers of export-benchmark.sh;
# - iio: one IIO scan (accelerometer + gyroscope) written as JSON lines, quantised and in full,
#   and with the four fused types (six records),
#   against iio_readdev reading and writing a scan of the fake device through the real libiio;
# - ring: one motion sample (6 × s16 scan) from the sampling thread's decode through a device's
#   FrameRing to a reader (the release RingCount program), read as the ring's batches or copied
#   out frame by frame (`read(into:)`).
# - drain: one IIO-like scan (accelerometer + gyro, whole counts) through a task run's motion
#   recording: the ring, the pipeline, the encoder, SHA-256 and write(2) (the release DrainCount
#   program; user-space instructions only: the kernel's copy into the page cache is not counted).
# - live: one record written into the web page's live plot messages (LivePoints), against
#   Foundation's JSONEncoder writing the same values.
# The difference between a long and a short run is that many iterations' worth, without start-up.
# - protocol: a step boundary's JSON: a step.start's params as the client writes them, the
#   daemon's StepResult reply written and read back by the client, a 20-step manifest pretty-printed
#   (recorderd's JSONTextEncoder / JSONParser + JSONValueDecoder against Foundation's encoder and
#   decoder as they were used before, in the same run).
# - upload: one MB of a run through the fleet upload without the network (the release UploadCount
#   program: the Pi's manifest and chunks, the collector's store and SHA-256 checks), against
#   mosquitto_pub + mosquitto_sub moving the same file through a broker.
# Usage: scripts/count-instructions.sh [parse|protocol|fusion|gait|export|iio|ring|drain|live|upload]...
#
# COUNT_ARCH=arm64 (root): the programs compiled by Debian's Swift 6.2.3 for aarch64 (the arm64
# package's compiler: scripts/arm64/) and counted by Debian 13's arm64 valgrind in an arm64 root
# under qemu-user (valgrind translates the guest's aarch64 code itself, so the count is of aarch64
# instructions, whatever runs it); COUNT_ARCH=sid-amd64: the same compiler for x86_64 in its own
# root with its valgrind — the compiler's share of a difference apart from the CPU's. Parts: parse,
# gait, iio (recorderd's side), fusion (recorderd's side).
#
# COUNT_COUNTER=qemu (the default with COUNT_ARCH=arm64) counts with a TCG plugin of qemu-user's
# instead (Benchmarks/InstructionCounts/qemu_insn_count.c: every guest instruction executed, user
# space, as callgrind's Ir; the arm64 programs in the tests' root, scripts/arm64/tests-root.sh) —
# valgrind under qemu-user is about 35 times slower than qemu alone, and ran past 45 minutes on the
# first gait count. The plugin cannot count inside one function (--toggle-collect), so the gait
# part takes the difference of two runs of one part (GAIT_PART) and fusion is valgrind's only.
# COUNT_COUNTER=valgrind (the default otherwise) as above; COUNT_COUNTER=qemu without COUNT_ARCH
# counts this machine's x86_64 programs under qemu-x86_64, beside valgrind's: the two counters'
# agreement.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${COUNT_ARCH:-}
counting=${COUNT_COUNTER:-$([ "$arch" = arm64 ] && echo qemu || echo valgrind)}
case "$counting" in valgrind|qemu) ;; *) echo "count-instructions.sh: COUNT_COUNTER=$counting: valgrind or qemu" >&2; exit 64 ;; esac
case "$arch" in
  "") out=$(mktemp -d) ;;
  arm64|sid-amd64)
    # In the tree: the compiler's chroot sees it at /src.
    toolchain=$(./scripts/arm64/toolchain.sh | tail -1)
    mkdir -p .build-arm64
    out=$(mktemp -d .build-arm64/count.XXXXXX)
    if [ "$arch" = arm64 ] && [ "$counting" = qemu ]; then
      counter=$(./scripts/arm64/tests-root.sh | tail -1)
      target=(-target aarch64-unknown-linux-gnu -sdk /sysroot -resource-dir /sysroot/usr/lib/swift_static -static-stdlib -Xclang-linker --sysroot=/sysroot -Xclang-linker -fuse-ld=lld)
      ctarget=(-target aarch64-linux-gnu --sysroot=/sysroot)
    elif [ "$arch" = arm64 ]; then
      ./scripts/arm64/binfmt.sh
      counter=.build-arm64/valgrind-arm64
      if [ ! -x "$counter/usr/bin/valgrind" ]; then
        rm -rf "$counter" && mkdir -p "$counter"
        tar -xf "$(./scripts/arm64/root.sh | tail -1)" -C "$counter"
        cp /etc/resolv.conf "$counter/etc/resolv.conf"
        chroot "$counter" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind' > "$out/apt.log" 2>&1 || { cat "$out/apt.log" >&2; exit 1; }
      fi
      target=(-target aarch64-unknown-linux-gnu -sdk /sysroot -resource-dir /sysroot/usr/lib/swift_static -static-stdlib -Xclang-linker --sysroot=/sysroot -Xclang-linker -fuse-ld=lld)
      ctarget=(-target aarch64-linux-gnu --sysroot=/sysroot)
    else
      counter=$toolchain/sid
      [ -x "$counter/usr/bin/valgrind" ] && [ -n "$(ls "$counter"/usr/lib/gcc/x86_64-linux-gnu/*/libstdc++.a 2>/dev/null)" ] \
        || ./scripts/arm64/build.sh --run sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind "libstdc++-$(gcc -dumpversion 2>/dev/null || ls /usr/lib/gcc/x86_64-linux-gnu | sort -n | tail -1)-dev" >/dev/null'
      target=(-static-stdlib)
      ctarget=()
    fi
    ;;
  *) echo "count-instructions.sh: COUNT_ARCH=$arch: arm64 or sid-amd64" >&2; exit 64 ;;
esac
trap 'rm -rf "$out"' EXIT
# A program of $out run in the counting root (COUNT_ARCH), at the tree.
run() { if [ -n "$arch" ]; then ./scripts/arm64/in-root.sh "$counter" . "$@"; else "$@"; fi; }
if [ "$counting" = qemu ]; then
  command -v qemu-aarch64 > /dev/null && command -v qemu-x86_64 > /dev/null \
    || { echo "count-instructions.sh: COUNT_COUNTER=qemu needs qemu-user (scripts/setup.sh: not the static one, which loads no plugin)" >&2; exit 69; }
  cc -shared -fPIC -O2 -o "$out/qemu_insn_count.so" Benchmarks/InstructionCounts/qemu_insn_count.c
  # qemu-user with the guest's root as its prefix (-L: the loader and libraries are the root's).
  emulate() {
    case "$arch" in
      arm64) qemu-aarch64 -L "$counter" "$@" ;;
      sid-amd64) qemu-x86_64 -L "$counter" "$@" ;;
      *) qemu-x86_64 "$@" ;;
    esac
  }
  run() { emulate "$@"; }
fi
# Samples through the fusion and the gait analysis (COUNT_SAMPLES; valgrind under qemu-user runs
# about 100 times slower than here, so compare arm64 with x86_64 at the same, smaller count;
# COUNT_SCANS likewise for the IIO scans, default 100000).
samples=${COUNT_SAMPLES:-200000}
scans=${COUNT_SCANS:-100000}
# cc, or with COUNT_ARCH the toolchain's clang for the counting root's machine.
ccompile() { if [ -n "$arch" ]; then ./scripts/arm64/build.sh --run /usr/libexec/swift/bin/clang ${ctarget[@]+"${ctarget[@]}"} "$@"; else cc "$@"; fi; }
# The bottom modules (runtime, JSON, model, protocol) compiled into each measured program as one
# module with it, as the programs were before the split (no cross-module calls to count): their
# sources without the imports of one another, and the runtime's C shim as objects and a module map.
bottom() {
  mkdir -p "$out/bottom" "$out/cshim"
  for f in Sources/RecorderRuntime/*.swift Sources/RecorderJSON/*.swift Sources/RecorderModel/*.swift Sources/RecorderProtocol/*.swift; do
    sed -E '/^import Recorder(Runtime|JSON|Model|Protocol|Configuration)$/d' "$f" > "$out/bottom/$(basename "$f")"
  done
  local tree=$PWD
  [ -z "$arch" ] || tree=/src
  printf 'module CRecorderRuntime {\n  header "%s"\n  export *\n}\n' "$tree/Sources/CRecorderRuntime/include/CRecorderRuntime.h" > "$out/cshim/module.modulemap"
  for c in Sources/CRecorderRuntime/*.c; do
    ccompile -O2 -c -I Sources/CRecorderRuntime/include -o "$out/cshim/$(basename "$c" .c).o" "$c"
  done
}
# swiftc for a measured program: its sources ($@) with the bottom modules.
compile() {
  local name=$1 output=$2; shift 2
  [ -d "$out/bottom" ] || bottom
  if [ -n "$arch" ]; then
    ./scripts/arm64/build.sh --run swiftc "${target[@]}" -O -package-name recorderd -module-name "$name" -o "$output" -I "$out/cshim" "$@" "$out/bottom/"*.swift "$out/cshim/"*.o
  else
    swiftc -O -package-name recorderd -module-name "$name" -o "$output" -I "$out/cshim" "$@" "$out/bottom/"*.swift "$out/cshim/"*.o
  fi
}
instructions() {
  local options=()
  while [[ $1 == --* ]]; do options+=("$1"); shift; done
  if [ "$counting" = qemu ]; then
    [ ${#options[@]} = 0 ] || { echo "count-instructions.sh: ${options[*]} is valgrind's (COUNT_COUNTER=valgrind)" >&2; return 1; }
    rm -f "$out/qemu-count"
    emulate -plugin "$out/qemu_insn_count.so,out=$out/qemu-count" "$@" > /dev/null 2> "$out/log" || { echo "failed: $*" >&2; tail -3 "$out/log" >&2; }
    cat "$out/qemu-count"
    return
  fi
  run valgrind --tool=callgrind ${options[@]+"${options[@]}"} --callgrind-out-file="$out/cg" "$@" > /dev/null 2> "$out/log" || { echo "failed: $*" >&2; tail -3 "$out/log" >&2; }
  grep -o 'Collected : [0-9]*' "$out/log" | grep -o '[0-9]*'
}
parts=("${@:-parse}")
for part in "${parts[@]}"; do
  case $part in
  parse)
    mkdir -p "$out/parse-src"
    cp Benchmarks/InstructionCounts/parse.swift "$out/parse-src/main.swift"
    compile ParseCount "$out/parse" "$out/parse-src/main.swift"
    for side in ours foundation; do
      one=$(instructions "$out/parse" "$side" 1)
      many=$(instructions "$out/parse" "$side" 1001)
      echo "parse $side: $(( (many - one) / 1000 )) instructions per step.start + task.start pair"
    done
    ;;
  protocol)
    mkdir -p "$out/protocol-src"
    cp Benchmarks/InstructionCounts/protocol.swift "$out/protocol-src/main.swift"
    sed -E '/^import Recorder(Runtime|JSON|Model|Protocol|Configuration|TestSupport)$/d' Benchmarks/RecorderBenchmarks/ProtocolEncodeBenchmark.swift > "$out/protocol-src/ProtocolEncodeBenchmark.swift"
    # Foundation's coders as the tests configure them: the benchmark's peer.
    for f in TaskResult+FoundationCoders FoundationRPCMessage; do
      sed -E '/^import Recorder(Runtime|JSON|Model|Protocol|Configuration|TestSupport)$/d' "Tests/RecorderTestSupport/$f.swift" > "$out/protocol-src/$f.swift"
    done
    compile ProtocolCount "$out/protocol" "$out/protocol-src/"*.swift
    for row in params reply read manifest; do
      counts=()
      for side in ours foundation; do
        one=$(instructions "$out/protocol" "$side" "$row" 100)
        many=$(instructions "$out/protocol" "$side" "$row" 1100)
        counts+=($(( (many - one) / 1000 )))
      done
      echo "protocol $row: recorderd ${counts[0]}, Foundation ${counts[1]} instructions ($(awk "BEGIN{printf \"%.2f\", ${counts[0]}/${counts[1]}}")×)"
    done
    ;;
  fusion)
    walk=Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test11_Trial1.csv
    mkdir -p "$out/fusion-src"
    cp Benchmarks/InstructionCounts/fusion.swift "$out/fusion-src/main.swift"
    # One module: the fusion sources without their `import RecorderModel`.
    # MotionFusion's pure files (those that do not need the engine), compiled with the model.
    for f in $(grep -L '^import RecorderEngine$' Sources/MotionFusion/*.swift); do
        sed -E '/^import Recorder(Runtime|JSON|Model|Protocol|Configuration)$/d' "$f" > "$out/fusion-src/$(basename "$f")"
    done
    [ "$counting" = valgrind ] || { echo "fusion: counted inside DeviceMotionFuser.process by valgrind only (COUNT_COUNTER=valgrind)"; continue; }
    compile FusionCount "$out/fusion" "$out/fusion-src/"*.swift
    # Only inside the per-delivery call (the harness's own loops would swamp the difference).
    inside=$(instructions --toggle-collect='*DeviceMotionFuser*process*' "$out/fusion" "$walk" $samples)
    update=$(instructions --toggle-collect='*MahonyFilter*update*' "$out/fusion" "$walk" $samples)
    echo "fusion recorderd: $(( inside / $samples )) instructions per sample in DeviceMotionFuser.process (of which Mahony's update $(( update / $samples )))"
    # The peer: x-io Fusion's C sources from imufusion's sdist, with a harness reading the same CSV.
    # (From PyPI's simple index: `pip download --no-binary` would build the package to read its metadata.)
    url=$(curl -fsS https://pypi.org/simple/imufusion/ | grep -o 'href="[^"]*imufusion-1.3.3.tar.gz[^"]*"' | head -1 | sed 's/^href="//;s/"$//;s/&amp;/\&/g')
    sdist="$out/imufusion-1.3.3.tar.gz"
    if [ -z "$url" ] || ! curl -fsSL -o "$sdist" "$url"; then echo "fusion peer: imufusion's source distribution could not be downloaded"; continue; fi
    tar xzf "$sdist" -C "$out"
    fusion_dir=$(dirname "$(find "$out" -name FusionAhrs.c | head -1)")
    ccompile -O2 -I"$fusion_dir" -o "$out/fusion-c" Benchmarks/InstructionCounts/fusion_peer.c "$fusion_dir"/*.c -lm
    peer=$(instructions --toggle-collect='FusionAhrsUpdateNoMagnetometer' "$out/fusion-c" "$walk" $samples)
    echo "fusion peer (x-io Fusion AHRS, C, -O2, single precision): $(( peer / $samples )) instructions per sample in FusionAhrsUpdateNoMagnetometer"
    ;;
  gait)
    walk=Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test11_Trial1.csv
    mkdir -p "$out/gait-src"
    cp Benchmarks/InstructionCounts/gait.swift "$out/gait-src/main.swift"
    for f in $(grep -L '^import RecorderEngine$' Sources/MotionFusion/*.swift Sources/GaitAnalysis/*.swift); do
        sed -E '/^import Recorder(Runtime|JSON|Model|Protocol|Configuration)$/d' "$f" > "$out/gait-src/$(basename "$f")"
    done
    compile GaitCount "$out/gait" "$out/gait-src/"*.swift
    if [ "$counting" = qemu ]; then
      # Each part alone, the difference of $samples more samples (start-up and the fusion of the
      # walk are the same in both runs).
      per() { # part [height]
        local one many
        one=$(GAIT_PART=$1 instructions "$out/gait" "$walk" 10000 ${2:+"$2"})
        many=$(GAIT_PART=$1 instructions "$out/gait" "$walk" $(( 10000 + samples )) ${2:+"$2"})
        echo $(( (many - one) / samples ))
      }
      echo "gait recorderd: $(per analyse) instructions per sample in the contact detector and bout rules"
      echo "gait recorderd: $(per track) instructions per sample in the whole tracker (detector, bouts, regularity, sway, turns)"
      echo "gait recorderd: $(per track 0.964) instructions per sample in the whole tracker with step lengths (stride length, speed, distance)"
      continue
    fi
    inside=$(instructions --toggle-collect='*analyse*' "$out/gait" "$walk" $samples)
    echo "gait recorderd: $(( inside / $samples )) instructions per sample in the contact detector and bout rules"
    tracked=$(instructions --toggle-collect='*track*' "$out/gait" "$walk" $samples)
    echo "gait recorderd: $(( tracked / $samples )) instructions per sample in the whole tracker (detector, bouts, regularity, sway, turns)"
    spatial=$(instructions --toggle-collect='*track*' "$out/gait" "$walk" $samples 0.964)
    echo "gait recorderd: $(( spatial / $samples )) instructions per sample in the whole tracker with step lengths (stride length, speed, distance)"
    ;;
  iio)
    # recorderd's side: one scan's accelerometer and gyroscope records written as JSON lines,
    # quantised (as recorderd writes an IIO device) and in full (as it did before).
    mkdir -p "$out/scan-src"
    cp Benchmarks/InstructionCounts/scan.swift "$out/scan-src/main.swift"
    compile ScanCount "$out/scan" "$out/scan-src/main.swift"
    # The harness's own making of the values, subtracted.
    base=$(( $(instructions "$out/scan" none $(( 1000 + scans ))) - $(instructions "$out/scan" none 1000) ))
    for side in quantised full fused; do
      one=$(instructions "$out/scan" "$side" 1000)
      many=$(instructions "$out/scan" "$side" $(( 1000 + scans )))
      bytes=$(run "$out/scan" "$side" "$scans")
      records=$([ "$side" = fused ] && echo "six records (two quantised, four fused in full)" || echo "two records, $side numbers")
      echo "iio recorderd: $(( (many - one - base) / scans )) instructions per scan writing its $records ($(( bytes / scans )) bytes per scan)"
    done
    # The peer, iio_readdev through the real libiio on the fake device (root: the namespace).
    if [ -n "$arch" ]; then
      echo "iio peer: not counted with COUNT_ARCH (the fake device's namespace is this machine's)"
    elif [ "$(id -u)" = 0 ]; then
      swift build -c release --product RecorderBenchmarks >/dev/null 2>&1 && swift build -c release --product FakeIIOGenerator >/dev/null 2>&1
      BENCH_ONLY=iio-instructions "$(swift build -c release --show-bin-path)/RecorderBenchmarks" | grep '^iio'
    else
      echo "iio peer: skipped (iio_readdev's count needs root for the fake device's namespace)"
    fi
    ;;
  ring)
    swift build -c release --product RingCount >/dev/null 2>&1
    bin=$(swift build -c release --show-bin-path)
    for reader in batch copy; do
      small=$(instructions "$bin/RingCount" "$reader" 10000)
      large=$(instructions "$bin/RingCount" "$reader" 110000)
      echo "ring $reader: $(( (large - small) / 100000 )) instructions per scan (decode into a frame, deliver, read, touch)"
    done
    ;;
  drain)
    swift build -c release --product DrainCount >/dev/null 2>&1
    bin=$(swift build -c release --show-bin-path)
    mkdir -p "$out/small" "$out/large"
    # Without debug information (valgrind 3.19 cannot read this toolchain's DWARF 5 for C with
    # intrinsics); the symbol table stays, so the compression keeps its name.
    strip --strip-debug -o "$out/DrainCount" "$bin/DrainCount"
    # SHA-256's share is reported apart: valgrind's CPU has no SHA extensions, so under it the
    # portable compression runs (~20 instructions a byte instead of a few cycles).
    crypto() { callgrind_annotate --inclusive=no "$out/cg" 2>/dev/null | awk '/recorderd_sha256_compress/ { gsub(",", "", $1); s += $1 } END { print s + 0 }'; }
    small=$(instructions "$out/DrainCount" 10000 "$out/small"); small_crypto=$(crypto)
    large=$(instructions "$out/DrainCount" 110000 "$out/large"); large_crypto=$(crypto)
    echo "drain: $(( (large - large_crypto - small + small_crypto) / 100000 )) instructions per scan without SHA-256 (ring → pipeline → accelerometer and gyro records → write(2)); SHA-256 (portable, under valgrind) $(( (large_crypto - small_crypto) / 100000 ))"
    ;;
  live)
    mkdir -p "$out/live-src"
    cp Benchmarks/InstructionCounts/live.swift "$out/live-src/main.swift"
    sed -E '/^import Recorder(Runtime|JSON|Model|Protocol|Configuration)$/d' Sources/RecorderWeb/LivePoints.swift > "$out/live-src/LivePoints.swift"
    compile LiveCount "$out/live" "$out/live-src/"*.swift
    for side in ours foundation; do
      one=$(instructions "$out/live" "$side" 100)
      many=$(instructions "$out/live" "$side" 1100)
      echo "live $side: $(( (many - one) / 10000 )) instructions per record (10 records a message)"
    done
    ;;
  export)
    swift build -c release --product ExportCount >/dev/null 2>&1
    # valgrind 3.19's DWARF reader can give up on the release binary's debug information: a copy without it.
    strip --strip-debug -o "$out/ExportCount" "$(swift build -c release --show-bin-path)/ExportCount"
    bin=$out
    python3 Benchmarks/export/make_run.py "$out/small" 2000
    python3 Benchmarks/export/make_run.py "$out/large" 4000
    records=6000  # 2,000 samples × 3 sensor types more in the large run
    for format in csv mcap sage fhir; do
      small=$(instructions "$bin/ExportCount" "$format" "$out/small" "$out/small.$format")
      large=$(instructions "$bin/ExportCount" "$format" "$out/large" "$out/large.$format")
      echo "export $format recorderd: $(( (large - small) / records )) instructions per record"
    done
    # The interpreter itself (a pyenv shim is a shell script that valgrind would measure instead).
    python=$(python3 -c 'import sys; print(sys.executable)')
    peer() { # format run output
      case $1 in
        csv) instructions "$python" Benchmarks/export/peer_csv.py "$2/motion.jsonl" "$3" ;;
        mcap) instructions "$python" Benchmarks/export/peer_mcap.py "$2/motion.jsonl" "$3" 1795000000 49494.329802899 ;;
        sage) instructions "$python" Benchmarks/export/peer_sage.py "$2" "$3" ;;
        fhir) instructions "$python" Benchmarks/export/peer_fhir.py "$2" "$3" ;;
      esac
    }
    for format in csv mcap sage fhir; do
      small=$(peer "$format" "$out/small" "$out/peer-small.$format")
      large=$(peer "$format" "$out/large" "$out/peer-large.$format")
      echo "export $format Python peer: $(( (large - small) / records )) instructions per record"
    done
    ;;
  upload)
    swift build -c release --product UploadCount >/dev/null 2>&1
    # Stripped: valgrind 3.19 cannot read this toolchain's DWARF 5 (glibc's symbols and CSHA256's remain).
    strip -o "$out/UploadCount" "$(swift build -c release --show-bin-path)/UploadCount"
    # Two runs of a real walk's motion lines, 2 MB and 18 MB (16 MB apart), with a task result.
    for size in small:2000000 large:18000000; do
      name=${size%%:*} bytes=${size#*:}
      run="$out/$name/runs/walk/20261123T120000Z-$(cat /proc/sys/kernel/random/uuid | tr a-z A-Z)"
      mkdir -p "$run"
      python3 - "$run" "$bytes" <<'PY'
import sys
run, size = sys.argv[1], int(sys.argv[2])
rows = open("Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test11_Trial1.csv").read().splitlines()[1:]
with open(f"{run}/motion.jsonl", "w") as f:
    written, uptime, i = 0, 0.0, 0
    while written < size:
        v = rows[i % len(rows)].split(",")
        line = f'{{"uptime":{uptime:.6f},"timestamp":{uptime:.6f},"sensorType":"accelerometer","x":{v[1]},"y":{v[2]},"z":{v[3]}}}\n'
        f.write(line)
        written, uptime, i = written + len(line), uptime + 0.01, i + 1
open(f"{run}/taskResult.json", "w").write('{"taskIdentifier":"walk","status":"finished"}\n')
PY
      eval "${name}_run=\$run"
    done
    small=$(instructions "$out/UploadCount" "$small_run" "$out/collected-small")
    large=$(instructions "$out/UploadCount" "$large_run" "$out/collected-large")
    echo "upload recorderd (Pi: manifest + chunks; collector: store + check): $(( (large - small) / 16 )) instructions per MB"
    # Each side apart, plain and at zstd levels 1, 3 and 6 (the Pi's side alone: UploadCount's
    # `pi`; the collector's: the whole less the Pi's), with the bytes on the wire per byte.
    for level in 0 1 3 6; do
      pi_small=$(instructions "$out/UploadCount" "$small_run" "$out/pi-small-$level" "$level" pi)
      pi_large=$(instructions "$out/UploadCount" "$large_run" "$out/pi-large-$level" "$level" pi)
      both_small=$(instructions "$out/UploadCount" "$small_run" "$out/both-small-$level" "$level" both)
      both_large=$(instructions "$out/UploadCount" "$large_run" "$out/both-large-$level" "$level" both)
      read -r files wire _ < <("$out/UploadCount" "$large_run" "$out/wire-large-$level" "$level" pi)
      echo "upload level $level (0: plain): Pi $(( (pi_large - pi_small) / 16 )), collector $(( (both_large - both_small - pi_large + pi_small) / 16 )) instructions per MB; $wire bytes on the wire for $files"
    done
    # The peer of the compression: zstd's own program at each level, on the large run's motion lines.
    for level in 1 3 6; do
      zone=$(instructions zstd -q "-$level" -f "$small_run/motion.jsonl" -o "$out/peer-small.zst")
      ztwo=$(instructions zstd -q "-$level" -f "$large_run/motion.jsonl" -o "$out/peer-large.zst")
      done_one=$(instructions zstd -q -d -f "$out/peer-small.zst" -o "$out/peer-small.out")
      done_two=$(instructions zstd -q -d -f "$out/peer-large.zst" -o "$out/peer-large.out")
      echo "upload peer zstd -$level: compress $(( (ztwo - zone) / 16 )), decompress $(( (done_two - done_one) / 16 )) instructions per MB; $(stat -c %s "$out/peer-large.zst") bytes for $(stat -c %s "$large_run/motion.jsonl")"
    done
    # The peer: mosquitto's own clients moving the motion file through a broker (QoS 1, retained):
    # mosquitto_pub reading and sending it, mosquitto_sub receiving and writing it.
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    { echo "listener $port 127.0.0.1"; echo "allow_anonymous true"; echo "persistence false"; [ "$(id -u)" = 0 ] && echo "user root"; } > "$out/broker.conf"
    mosquitto -c "$out/broker.conf" > /dev/null 2>&1 &
    broker=$!
    for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
    for name in small large; do
      eval "run=\$${name}_run"
      pub=$(instructions mosquitto_pub -p "$port" -q 1 -r -t "count/$name" -f "$run/motion.jsonl")
      sub=$(instructions mosquitto_sub -p "$port" -q 1 -t "count/$name" -C 1 -N)
      eval "${name}_peer=$(( pub + sub ))"
    done
    kill "$broker"; wait "$broker" 2>/dev/null || true
    # mosquitto's clients hand the bytes to the kernel: their user-space count barely grows with
    # the size (it can even shrink: start-up varies by more than the 16 MB cost).
    echo "upload peer (mosquitto_pub + mosquitto_sub): $small_peer for 2 MB, $large_peer for 18 MB: $(( (large_peer - small_peer) / 16 )) instructions per MB"
    # The floor of a checked transfer: one SHA-256 pass on each side (coreutils' sha256sum).
    one=$(instructions sha256sum "$small_run/motion.jsonl")
    two=$(instructions sha256sum "$large_run/motion.jsonl")
    echo "upload floor (sha256sum, one pass): $(( (two - one) / 16 )) instructions per MB; two passes (the Pi's manifest, the collector's check): $(( (two - one) / 8 ))"
    ;;
  esac
done
