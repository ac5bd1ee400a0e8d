import Foundation
import RecorderModel
import RecorderTestSupport
import Testing

/// The Debian package in a real Debian guest (`VMGuest`: Debian's kernel under qemu, systemd as
/// PID 1, udev): installed with `apt install ./recorderd_….deb`, started by socket activation
/// under its hardening, the udev rules applied to an IMU bound by its real kernel driver on
/// `i2c-stub`, and removed and purged as dpkg does.
@Suite("The Debian package in a guest", .serialized)
struct PackageInGuestTests {
    /// The package of the guests' architecture (`VMGuest.architecture`) that `scripts/build-deb.sh`
    /// built (CI builds both before the tests).
    static var package: String? { VMGuest.guestPackage }

    static func enabled(_ name: String) -> Bool {
        guard VMGuest.testsEnabled(name) else { return false }
        if package == nil, !Privileges.isCI {
            print("SKIP \(name): needs the package (scripts/build-deb.sh); runs under CI")
            return false
        }
        return true
    }

    /// Installs the package; the first `recorderctl status` starts the service through its
    /// socket; it runs as `recorderd` with no capabilities, seccomp on and no new privileges, and
    /// cannot write outside its directories; a BMI160 bound by `bmi160_i2c` on `i2c-stub` gets
    /// an IIO node of group `iio` that recorderd lists; `systemctl reload` applies a changed
    /// configuration; remove keeps the recordings and the configuration, purge removes them.
    @Test(.enabled(if: enabled("PackageInGuestTests")), .timeLimit(.minutes(16)), .ownThread)
    func installedPackageRunsBySocketActivationUnderItsHardening() async throws {
        let deb = try #require(Self.package, "\(VMGuest.noPackage)")
        let name = URL(fileURLWithPath: deb).lastPathComponent
        let freezer = try await Self.freezeThreadHelper()
        let script = Self.installScript.replacingOccurrences(of: "@DEB@", with: name)
            .replacingOccurrences(of: "@BMI_HZ@", with: String(Self.bmiRate))
        let outcome = try await VMGuest.run(script,
                                            files: [name: deb, "freeze-thread": freezer], timeout: 900)
        let facts = Self.facts(outcome.output)
        print("guest uptime at each stage: " + outcome.output.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("at ") }.joined(separator: "; "))
        #expect(outcome.status == 0, "\(outcome.output.suffix(3000))\n--- console:\n\(outcome.console.suffix(3000))")
        #expect(facts["installed"] == "ok", "\(outcome.output.suffix(3000))")
        #expect(facts["socket"] == "active" && facts["serviceBefore"] == "inactive", "\(facts)")
        #expect(facts["status"] == "0" && facts["serviceAfter"] == "active", "\(facts)\n\(outcome.output.suffix(2000))")
        #expect(facts["user"] == "recorderd", "\(facts)")
        #expect(facts["CapEff"] == "0000000000000000" && facts["CapBnd"] == "0000000000000000", "\(facts)")
        #expect(facts["Seccomp"] == "2" && facts["NoNewPrivs"] == "1", "\(facts)")
        #expect(facts["writeOutside"] == "refused", "\(facts)")
        #expect(facts["iioGroup"] == "iio" && facts["iioMode"] == "crw-rw----", "\(facts)")
        // The driver's own scale for ±2 g: 2 × 9.80665 / 32768 m/s² per count (BMI160 datasheet).
        #expect(facts["accelScale"].flatMap(Double.init).map { abs($0 - 0.000598) < 0.000001 } == true, "\(facts)")
        #expect(facts["listed"] == "bmi160", "\(facts)\n\(outcome.output.suffix(2000))")
        #expect(facts["reloaded"] == "applied", "\(facts)")
        #expect(facts["afterRemove"] == "kept" && facts["afterPurge"] == "gone", "\(facts)")
        try Self.checkPolledRecording(facts: facts, share: outcome.share)
        try Self.checkLSM6DS3Recording(facts: facts, share: outcome.share)
        // systemctl stop with a run recording: the service stops, the run is closed, its file ends
        // with a whole line.
        #expect(facts["stop"] == "0" && facts["stoppedService"] == "inactive", "\(facts)")
        #expect(facts["stoppedRun"] == "interrupted" && facts["stoppedFile"] == "whole" && facts["stoppedRecording"] == "0", "\(facts)")
        // A wedged sampling thread: the daemon still answers, the watchdog's pings stop for it,
        // systemd restarts the service once, the run is marked interrupted.
        #expect(facts["frozen"] == "frozen \(facts["wedgedThread"] ?? "?")", "\(facts)")
        #expect(facts["statusWhileWedged"] == "0", "\(facts)")
        #expect(facts["wedgeReason"]?.hasPrefix("recorder thread wedged: bmi silent") == true, "\(facts)")
        #expect(facts["watchdogFired"] == "yes" && facts["restarts"] == "1", "\(facts)")
        #expect(facts["wedgedRun"] == "1", "\(facts)\n\(outcome.output.suffix(1500))")
    }

    /// The BMI160's polling rate: 100 Hz in the amd64 guest; 50 Hz in the arm64 one, whose CPU
    /// qemu translates from another architecture (several times slower than the amd64 guest):
    /// there, beside the qemu-user root test in CI's last phase, six channels polled through
    /// i2c-stub at 100 Hz dropped 482 of 1,229 ticks (counted in gaps, as they must be) with a
    /// median step of 12.8 ms.
    static var bmiRate: Int { VMGuest.architecture == "amd64" ? 100 : 50 }

    /// `scripts/vm/freeze-thread.c`, built for the guest (amd64: the same Debian release as this
    /// host's, so the same C library; arm64: cross-compiled against the arm64 toolchain's Debian 13
    /// root, `scripts/arm64/toolchain.sh`, and linked statically): stops one thread with ptrace,
    /// as a wedged driver call would.
    static func freezeThreadHelper() async throws -> String {
        let output = try Fixtures.temporaryDirectory() + "/freeze-thread"
        let source = VMGuest.packageRoot + "/scripts/vm/freeze-thread.c"
        let cross = VMGuest.architecture == "amd64" ? []
            : ["--target=aarch64-linux-gnu", "--sysroot=\(VMGuest.packageRoot)/.build-arm64/target", "-fuse-ld=lld", "-static"]
        let compiler = try await ChildProcess("/usr/bin/env", ["clang", "-O1"] + cross + ["-o", output, source])
        #expect(try await compiler.wait(timeout: 60) == 0, "\(compiler.printed)")
        return output
    }

    /// The LSM6DS3's accelerometer (st_lsm6dsx without its interrupt: Debian 12's 6.1 driver then
    /// has no buffer at all, Debian 13's 6.12 one a buffer with no trigger): polled at 20 Hz with
    /// the device at its highest rate, the registers' counts in the driver's scale, the changed
    /// register from one sample on, every tick a sample or counted in a gap.
    static func checkLSM6DS3Recording(facts: [String: String], share: String) throws {
        print("GUEST lsm6ds3: capture \(facts["lsmCapture"] ?? "-"); rates \(facts["lsmRates"] ?? "-"); set \(facts["lsmSensorFrequency"] ?? "-")")
        let polledBecause = VMGuest.architecture == "amd64" ? "polled: the driver has no buffer" : "polled: no trigger"
        #expect(facts["lsmCapture"]?.hasPrefix(polledBecause) == true, "\(facts)")
        #expect(facts["lsmGroup"] == "iio", "\(facts)")
        let highest = facts["lsmRates"]?.split(separator: " ").compactMap { Double($0) }.max()
        #expect(highest != nil && facts["lsmSensorFrequency"].flatMap(Double.init) == highest, "\(facts)")
        #expect(facts["lsmFinished"] == "0" && facts["lsmMotionFile"] == "copied", "\(facts)")
        // 61 µg per count at ±2 g (LSM6DS3 datasheet), as the driver gives it in m/s².
        let scale = try #require(facts["lsmAccelScale"].flatMap(Double.init))
        #expect(abs(scale - 0.000598) < 0.000001, "\(facts)")
        let records = try Fixtures.records(share + "/lsm-motion.jsonl")
        let samples = records.filter { $0.isSample && $0.sensorType == "accelerometer" }
        let g = 9.80665
        func counts(_ value: Double?, _ raw: Double) -> Bool { value.map { abs($0 - raw * scale / g) <= scale / g } ?? false }
        #expect(samples.count >= 30, "\(samples.count) samples")
        #expect(samples.allSatisfy { counts($0.z, 16_384) && counts($0.y, 0) }, "\(samples.prefix(3))")
        let change = try #require(samples.firstIndex { counts($0.x, -8_192) }, "the changed register is not in the records")
        #expect(change > 0 && samples[..<change].allSatisfy { counts($0.x, 0) } && samples[change...].allSatisfy { counts($0.x, -8_192) })
        let ticks = Self.tickAccounting(records, rate: 20)
        #expect(abs(ticks.drift) < 1, "\(ticks)")
        print("GUEST polled lsm6ds3 at 20 Hz: \(ticks)")
    }

    /// The BMI160 recording: polled (no interrupt on i2c-stub), its registers' values in the
    /// driver's scale and recorderd's units, the register changed mid-recording found from one
    /// sample on, every tick a sample or counted in a gap.
    static func checkPolledRecording(facts: [String: String], share: String) throws {
        // After the reload, during the recording and after a restart (an earlier version read
        // an empty current_trigger through Foundation, which failed on the kernel's zero-byte
        // file, and said "buffered" after the reload while the recording polled).
        print("GUEST bmi160 capture: after reload \(facts["capture"] ?? "-"); recording \(facts["captureRecording"] ?? "-"); "
            + "restarted \(facts["captureRestarted"] ?? "-")")
        for key in ["capture", "captureRecording", "captureRestarted"] {
            #expect(facts[key]?.hasPrefix("polled: no trigger") == true, "\(key): \(facts)")
        }
        #expect(facts["finished"] == "0" && facts["motionFile"] == "copied", "\(facts)")
        let accelScale = try #require(facts["accelScale"].flatMap(Double.init))
        let gyroScale = try #require(facts["gyroScale"].flatMap(Double.init))
        let records = try Fixtures.records(share + "/motion.jsonl")
        let accelerometer = records.filter { $0.isSample && $0.sensorType == "accelerometer" }
        let gyro = records.filter { $0.isSample && $0.sensorType == "gyro" }
        #expect(accelerometer.count >= 150 && accelerometer.count == gyro.count, "\(accelerometer.count) / \(gyro.count)")
        // Counts → g (accelerometer) and rad/s (gyro) through the driver's scale; files keep one
        // count's resolution, so within one count.
        func counts(_ value: Double?, _ raw: Double, _ scale: Double, _ unit: Double) -> Bool {
            value.map { abs($0 - raw * scale / unit) <= scale / unit } ?? false
        }
        let g = 9.80665
        let first = try #require(accelerometer.first)
        #expect(counts(first.x, 0, accelScale, g) && counts(first.y, 0, accelScale, g) && counts(first.z, 16_384, accelScale, g), "\(first)")
        #expect(counts(gyro.first?.x, 100, gyroScale, 1), "\(String(describing: gyro.first))")
        let change = try #require(accelerometer.firstIndex { counts($0.x, -8_192, accelScale, g) }, "the changed register is not in the records")
        #expect(change > 0 && accelerometer[..<change].allSatisfy { counts($0.x, 0, accelScale, g) })
        #expect(accelerometer[change...].allSatisfy { counts($0.x, -8_192, accelScale, g) && counts($0.z, 16_384, accelScale, g) })
        let uptimes = accelerometer.compactMap(\.uptime)
        let steps = zip(uptimes, uptimes.dropFirst()).map { $1 - $0 }.sorted()
        let rate = Double(bmiRate)
        let ticks = Self.tickAccounting(records, rate: rate)
        #expect(abs(ticks.drift) < 1, "\(ticks)")
        #expect(abs(steps[steps.count / 2] - 1 / rate) < 0.2 / rate, "median step \(steps[steps.count / 2])")
        print("GUEST polled bmi160 at \(bmiRate) Hz: \(ticks); "
            + "step median \(steps[steps.count / 2] * 1000) ms, p1 \(steps[steps.count / 100] * 1000) ms, p99 \(steps[steps.count * 99 / 100] * 1000) ms")
    }

    /// Every tick a sample or counted in a gap, in a polled accelerometer recording at `rate`.
    /// Each sample is given its tick in file order (the one after the previous sample's, plus the
    /// dropped samples of the gaps between) and its stamp's lateness behind that tick; the medians
    /// of the lateness in the first and last tenth of the recording must agree within a period
    /// (`drift`, in periods): a sample lost uncounted would put every later stamp a whole period
    /// further behind its tick. The span from the first stamp to the last was the measure before,
    /// and one slow read at either end (a stamp is taken midway through a tick's reads; CI's
    /// guest, beside the sanitizer build, read 50 ms long) counted as ticks.
    static func tickAccounting(_ records: [Record], rate: Double) -> (samples: Int, dropped: Int, drift: Double, lateness: (start: Double, end: Double)) {
        var tick = -1
        var dropped = 0
        var lateness: [Double] = []
        var origin: Double?
        for r in records where r.sensorType == "accelerometer" {
            if r.isGap { tick += r.droppedSamples ?? 0; dropped += r.droppedSamples ?? 0 }
            guard r.isSample, let uptime = r.uptime else { continue }
            tick += 1
            let start = origin ?? uptime
            origin = start
            lateness.append(uptime - start - Double(tick) / rate)
        }
        guard lateness.count >= 10 else { return (lateness.count, dropped, .infinity, (.nan, .nan)) }
        func median(_ values: ArraySlice<Double>) -> Double { values.sorted()[values.count / 2] }
        let tenth = lateness.count / 10
        let start = median(lateness.prefix(tenth)), end = median(lateness.suffix(tenth))
        return (lateness.count, dropped, (end - start) * rate, (start * 1000, end * 1000))
    }

    /// Audio through a real ALSA driver: `snd-aloop` in the guest, the fixture's real recording
    /// played into one side with `aplay` while recorderd (the installed service) records the
    /// other. The WAV holds the source bit for bit after its start offset, with no gap and nothing
    /// discarded, paced in real time (the audio ends within a period of the recording's end on
    /// CLOCK_MONOTONIC, and the source lies where it was played), and the levels are the WAV's.
    @Test(.enabled(if: enabled("PackageInGuestTests")), .timeLimit(.minutes(11)), .ownThread)
    func audioThroughTheLoopbackDriverIsTheSourceInRealTime() async throws {
        let deb = try #require(Self.package, "\(VMGuest.noPackage)")
        let name = URL(fileURLWithPath: deb).lastPathComponent
        let source = Fixtures.root + "/audio/Front_Center.wav"
        let outcome = try await VMGuest.run(Self.loopbackScript.replacingOccurrences(of: "@DEB@", with: name),
                                            files: [name: deb, "source.wav": source], timeout: 600)
        let facts = Self.facts(outcome.output)
        #expect(outcome.status == 0, "\(outcome.output.suffix(3000))\n--- console:\n\(outcome.console.suffix(2000))")
        #expect(facts["installed"] == "ok" && facts["loopback"] == "1", "\(facts)")
        #expect(facts["sndGroup"] == "audio", "\(facts)")
        #expect(facts["played"] == "0" && facts["finished"] == "0" && facts["copied"] == "yes", "\(facts)\n\(outcome.output.suffix(2000))")
        let input = try TestWAV.parse(source)
        let wav = try TestWAV.parse(outcome.share + "/voice.wav")
        #expect(wav.sampleRate == 48_000 && wav.channels == 1)
        // The source, whole and bit for bit, somewhere after the recording's start.
        let first = try #require(input.samples.firstIndex { $0 != 0 })
        let offset = (first..<max(first, wav.samples.count - input.samples.count + first)).first { r in
            wav.samples[r] == input.samples[first] && wav.samples[(r - first)..<(r - first + input.samples.count)].elementsEqual(input.samples)
        }.map { $0 - first }
        let start = try #require(offset, "the source is not in the recording bit for bit (\(wav.samples.count) frames recorded)")
        let result = try TaskResult.makeDecoder().decode(TaskResult.self, from: Data(contentsOf: URL(fileURLWithPath: outcome.share + "/result.json")))
        // The installed service asked the guest's chronyd (Debian's chrony; no network, so not
        // synchronised) through its hardening (the system-call filter, ProtectClock=,
        // IPAddressAllow=localhost): chronyc ran and answered, at the run's start and end.
        let clock = try #require(result.clockAtStart, "\(facts)")
        #expect(clock.source == .chrony && clock.synchronised == false && result.clockAtEnd?.source == .chrony,
                "\(clock) \(String(describing: result.clockAtEnd)) \(facts)")
        let files = result.asyncResults.compactMap(\.file)
        let audio = try #require(files.first { $0.contentType == "audio/wav" })
        let levelsFile = try #require(files.first { $0.relativePath == "voice.jsonl" })
        #expect(audio.droppedSamples == 0 && audio.gapCount == 0 && audio.frameCount == wav.samples.count, "\(audio)")
        let records = try Fixtures.records(outcome.share + "/voice.jsonl")
        #expect(!records.contains { $0.isGap || $0.event == "discarded" })
        // Paced: the source lies where aplay played it (within the player's start-up), and the
        // audio ends within a period of the recording's end.
        let sourceAt = audio.startUptime + Double(start) / 48_000
        let playStart = try #require(facts["playStart"].flatMap(Double.init))
        let playEnd = try #require(facts["playEnd"].flatMap(Double.init))
        #expect(sourceAt >= playStart - 0.02 && sourceAt + Double(input.samples.count) / 48_000 <= playEnd + 0.05,
                "source at \(sourceAt), played \(playStart)–\(playEnd)")
        let end = try #require(levelsFile.endUptime)
        let audioEnd = audio.startUptime + Double(wav.samples.count) / 48_000
        #expect(abs(audioEnd - end) <= 0.1, "the audio ends at \(audioEnd), the recording at \(end)")
        // The levels are the recorded audio's, window by window.
        let levels = records.filter { $0.average != nil }
        #expect(levels.count >= wav.samples.count / 4800)
        for (k, r) in levels.prefix(wav.samples.count / 4800).enumerated() {
            let want = TestWAV.levels(wav.samples[(k * 4800)..<((k + 1) * 4800)])
            #expect(abs(r.average! - want.average) < 1e-9 && abs(r.peak! - want.peak) < 1e-9, "window \(k)")
        }
        print("GUEST loopback: \(wav.samples.count) frames recorded, the source at frame \(start) (\(sourceAt) s; aplay \(playStart)–\(playEnd)); "
            + "audio end \(audioEnd), recording end \(end)")
    }

    static let loopbackScript = #"""
    set -u
    fact() { echo "fact $1=$2"; }
    cd /vmtest
    DEBIAN_FRONTEND=noninteractive apt-get install -y /vmtest/@DEB@ > /dev/null 2>&1 && fact installed ok
    # The guest's chronyd (Debian's chrony, no network: never synchronised), started if the boot
    # did not start it.
    systemctl start chrony.service || journalctl -u chrony.service --no-pager | tail -20
    fact chronyd "$(systemctl is-active chrony.service)"
    modprobe snd-aloop
    udevadm settle --timeout=30
    fact loopback "$(grep -c '^ *[0-9]* \[Loopback' /proc/asound/cards)"
    fact sndGroup "$(stat -c %G /dev/snd/controlC0)"
    sed -i 's|"devices": \[|"devices": [{"name": "loop", "kind": "alsa", "pcm": "hw:Loopback,1,0", "sampleRate": 48000, "channels": 1, "format": "S16_LE"},|' /etc/recorderd/recorderd.json
    recorderctl status > /dev/null; fact status $?
    recorderctl devices
    started=$(recorderctl start loop-audio --actions '[{"identifier": "voice", "type": "microphone", "device": "loop", "saveAudioFile": true, "levelInterval": 0.1}]')
    uuid=$(echo "$started" | sed -n 1p); dir=$(echo "$started" | sed -n 2p)
    # The capture side runs (its parameters are the loopback's); then the source, in real time.
    recorderctl tail loop --json --count 3 > /dev/null
    fact playStart "$(cut -d' ' -f1 /proc/uptime)"
    aplay -q -D hw:Loopback,0,0 /vmtest/source.wav; fact played $?
    fact playEnd "$(cut -d' ' -f1 /proc/uptime)"
    recorderctl tail loop --json --count 3 > /dev/null
    recorderctl finish "$uuid" > /dev/null; fact finished $?
    cp "$dir/voice.wav" "$dir/voice.jsonl" /vmtest/ && cp "$dir/taskResult.json" /vmtest/result.json && fact copied yes
    exit 0
    """#

    /// `key=value` lines the guest script printed.
    static func facts(_ output: String) -> [String: String] {
        var facts: [String: String] = [:]
        for line in output.split(whereSeparator: \.isNewline) {
            guard let eq = line.firstIndex(of: "="), line.hasPrefix("fact ") else { continue }
            facts[String(line[line.index(line.startIndex, offsetBy: 5)..<eq])] = String(line[line.index(after: eq)...])
        }
        return facts
    }

    static let installScript = #"""
    set -u
    fact() { echo "fact $1=$2"; }
    mark() { echo "at $(cut -d' ' -f1 /proc/uptime) s: $1"; }
    cd /vmtest
    mark start
    DEBIAN_FRONTEND=noninteractive apt-get install -y /vmtest/@DEB@ && fact installed ok
    mark installed
    fact socket "$(systemctl is-active recorderd.socket)"
    fact serviceBefore "$(systemctl is-active recorderd.service)"
    recorderctl status; fact status $?
    fact serviceAfter "$(systemctl is-active recorderd.service)"
    pid=$(systemctl show -p MainPID --value recorderd.service)
    fact user "$(ps -o user= -p "$pid")"
    for k in CapEff CapBnd Seccomp NoNewPrivs; do fact $k "$(sed -n "s/^$k:[[:space:]]*//p" /proc/$pid/status)"; done
    # Inside the service's mount namespace, as its user: /usr is read-only, its state directory is not.
    as_service() { nsenter -t "$pid" -m -S "$(id -u recorderd)" -G "$(id -g recorderd)" sh -c "$1"; }
    if [ "$pid" -gt 0 ] && as_service 'touch /var/lib/recorderd/probe'; then
      if as_service 'touch /usr/recorderd-was-here' 2>/dev/null; then fact writeOutside allowed; else fact writeOutside refused; fi
    fi
    mark status
    # A BMI160 on the fake I2C bus: its chip id and accelerometer range (±2 g) first, then bound
    # by its real driver.
    modprobe i2c-dev
    modprobe i2c-stub chip_addr=0x68,0x6a
    bus=$(for d in /sys/bus/i2c/devices/i2c-*; do [ "$(cat $d/name)" = "SMBus stub driver" ] && basename $d; done)
    i2cset -y "${bus#i2c-}" 0x68 0x00 0xd1 b
    i2cset -y "${bus#i2c-}" 0x68 0x41 0x03 b
    modprobe bmi160_i2c
    echo bmi160 0x68 > /sys/bus/i2c/devices/$bus/new_device
    udevadm settle --timeout=30
    node=$(ls /dev/iio:device* | head -1)
    fact iioGroup "$(stat -c %G "$node")"
    fact iioMode "$(stat -c %A "$node")"
    fact accelScale "$(cat /sys/bus/iio/devices/${node#/dev/}/in_accel_scale)"
    fact gyroScale "$(cat /sys/bus/iio/devices/${node#/dev/}/in_anglvel_scale)"
    # An LSM6DS3 beside it (its WHO_AM_I first), bound by st_lsm6dsx_i2c: two IIO devices,
    # lsm6ds3_accel and lsm6ds3_gyro; no interrupt, so no buffer at all.
    i2cset -y "${bus#i2c-}" 0x6a 0x0f 0x69 b
    modprobe st_lsm6dsx_i2c
    echo lsm6ds3 0x6a > /sys/bus/i2c/devices/$bus/new_device
    udevadm settle --timeout=30
    lsm=$(for d in /sys/bus/iio/devices/iio:device*; do [ "$(cat $d/name)" = lsm6ds3_accel ] && echo $d; done)
    fact lsmAccelScale "$(cat $lsm/in_accel_scale)"
    fact lsmRates "$(cat $lsm/sampling_frequency_available)"
    fact lsmGroup "$(stat -c %G /dev/${lsm##*/})"
    recorderctl devices --json > devices.json; cat devices.json
    fact listed "$(grep -o '"name" *: *"bmi160"' devices.json | head -1 | sed 's/.*"\(bmi160\)"/\1/')"
    # A changed configuration (the BMI160 added as a device), checked and applied by reload.
    sed -i 's|"devices": \[|"devices": [{"name": "bmi", "kind": "iio", "uri": "local:", "device": "bmi160", "frequency": @BMI_HZ@}, {"name": "lsm", "kind": "iio", "uri": "local:", "device": "lsm6ds3_accel", "frequency": 20},|' /etc/recorderd/recorderd.json
    before=$(systemctl show -p MainPID --value recorderd.service)
    systemctl reload recorderd.service; fact reload $?
    recorderctl devices | tee devices.txt
    [ "$(systemctl show -p MainPID --value recorderd.service)" = "$before" ] && grep -q "^bmi " devices.txt && fact reloaded applied
    mark reloaded
    # No interrupt on i2c-stub, so no data-ready trigger: recorderd polls the driver's raw
    # registers. Accelerometer z = 0x4000 counts (+1 g at ±2 g), then x = 0xE000 (-8192 counts)
    # written mid-recording, as a moving sensor would.
    b=${bus#i2c-}
    i2cset -f -y "$b" 0x68 0x12 0x00 b; i2cset -f -y "$b" 0x68 0x13 0x00 b
    i2cset -f -y "$b" 0x68 0x16 0x00 b; i2cset -f -y "$b" 0x68 0x17 0x40 b
    i2cset -f -y "$b" 0x68 0x0c 0x64 b; i2cset -f -y "$b" 0x68 0x0d 0x00 b
    recorderctl devices --json > devices2.json
    capture() { tr -d '\n' < "$1" | grep -o '"capture" *: *"[^"]*"' | head -1 | sed 's/^"capture" *: *"//; s/"$//'; }
    fact capture "$(capture devices2.json)"
    started=$(recorderctl start bmi-polled --actions '[{"identifier": "motion", "type": "motion", "device": "bmi", "recorderTypes": ["accelerometer", "gyro"], "frequency": @BMI_HZ@}]')
    uuid=$(echo "$started" | sed -n 1p); dir=$(echo "$started" | sed -n 2p)
    fact currentTrigger "$(od -An -c /sys/bus/iio/devices/${node#/dev/}/trigger/current_trigger | tr -d ' \n')"
    recorderctl devices --json > devices3.json; fact captureRecording "$(capture devices3.json)"
    recorderctl tail bmi --json --count 100 > before.ndjson; fact tailedBefore "$(grep -c accelerometer before.ndjson)"
    i2cset -f -y "$b" 0x68 0x12 0x00 b; i2cset -f -y "$b" 0x68 0x13 0xe0 b
    fact changedAt "$(cut -d' ' -f1 /proc/uptime)"
    recorderctl tail bmi --json --count 200 > after.ndjson; fact tailedAfter "$(grep -c accelerometer after.ndjson)"
    recorderctl finish "$uuid" > result.json; fact finished $?
    cp "$dir/motion.jsonl" /vmtest/motion.jsonl && fact motionFile copied
    cp result.json /vmtest/result.json
    mark recorded
    # The LSM6DS3's accelerometer, polled at 20 Hz: z = +1 g (0x4000 counts at ±2 g), then
    # x = -8192 counts written mid-recording. Its driver converts on demand (each read waits 3-4
    # output periods), so recorderd runs it at its highest rate.
    i2cset -f -y "$b" 0x6a 0x2c 0x00 b; i2cset -f -y "$b" 0x6a 0x2d 0x40 b
    recorderctl devices --json > devices5.json
    # (Keys are sorted: a device's details come before its name.)
    fact lsmCapture "$(awk '/"capture" *:/ { c = $0 } /"name" *: *"lsm"/ { print c; exit }' devices5.json | sed 's/^ *"capture" *: *"//; s/",*$//')"
    fact lsmSensorFrequency "$(cat $lsm/sampling_frequency)"
    started=$(recorderctl start lsm-polled --actions '[{"identifier": "motion", "type": "motion", "device": "lsm", "recorderTypes": ["accelerometer"], "frequency": 20}]')
    uuid=$(echo "$started" | sed -n 1p); dir=$(echo "$started" | sed -n 2p)
    recorderctl tail lsm --json --count 20 > /dev/null
    i2cset -f -y "$b" 0x6a 0x28 0x00 b; i2cset -f -y "$b" 0x6a 0x29 0xe0 b
    recorderctl tail lsm --json --count 40 > /dev/null
    recorderctl finish "$uuid" > /dev/null; fact lsmFinished $?
    cp "$dir/motion.jsonl" /vmtest/lsm-motion.jsonl && fact lsmMotionFile copied
    mark lsm
    # systemctl stop while a run records: the run is closed (interrupted), its file whole.
    started=$(recorderctl start bmi-stopped --actions '[{"identifier": "motion", "type": "motion", "device": "bmi", "recorderTypes": ["accelerometer"], "frequency": @BMI_HZ@}]')
    dir=$(echo "$started" | sed -n 2p)
    recorderctl tail bmi --json --count 50 > /dev/null
    systemctl stop recorderd.service; fact stop $?
    fact stoppedService "$(systemctl is-active recorderd.service)"
    fact stoppedRun "$(tr -d '\n' < "$dir/taskResult.json" | grep -o '"status" *: *"[a-z]*"' | head -1 | sed 's/.*"\([a-z]*\)"$/\1/')"
    [ "$(tail -c 1 "$dir/motion.jsonl" | od -An -tx1 | tr -d ' ')" = 0a ] && fact stoppedFile whole
    fact stoppedRecording "$(recorderctl runs --status recording | grep -c bmi-stopped)"
    mark stopped
    # A wedged sampling thread: only it stopped (ptrace; the main loop answers on), the watchdog's
    # pings stop, systemd aborts and restarts the service, and the run is marked interrupted.
    started=$(recorderctl start bmi-wedged --actions '[{"identifier": "motion", "type": "motion", "device": "bmi", "recorderTypes": ["accelerometer"], "frequency": @BMI_HZ@}]')
    recorderctl tail bmi --json --count 20 > /dev/null
    pid=$(systemctl show -p MainPID --value recorderd.service)
    tid=$(for t in /proc/$pid/task/*; do [ "$(cat $t/comm)" = iio.bmi ] && basename $t; done | head -1)
    fact wedgedThread "${tid:-none}"
    # Its first line comes once the thread is stopped (or says why not); read through a FIFO.
    mkfifo /tmp/freeze
    /vmtest/freeze-thread "$tid" 200 > /tmp/freeze 2>&1 &
    read -r frozen < /tmp/freeze
    fact frozen "$frozen"
    mark wedged
    recorderctl status > /dev/null; fact statusWhileWedged $?
    # systemd's restart, a state with no event to wait on here: polled, at most 150 s.
    for i in $(seq 1500); do
      now=$(systemctl show -p MainPID --value recorderd.service)
      [ "$now" != "$pid" ] && [ "$now" != 0 ] && break; sleep 0.1
    done
    mark restarted
    fact restarts "$(systemctl show -p NRestarts --value recorderd.service)"
    journalctl -u recorderd.service -o verbose --no-pager > journal.txt
    fact wedgeReason "$(sed -n 's/^ *RECORDERD_REASON=//p' journal.txt | grep wedged | head -1)"
    grep -q "Watchdog timeout" journal.txt && fact watchdogFired yes
    recorderctl runs --status interrupted > interrupted.txt; cat interrupted.txt
    fact wedgedRun "$(grep -c bmi-wedged interrupted.txt)"
    cp journal.txt /vmtest/journal.txt
    systemctl restart recorderd.service; recorderctl devices --json > devices4.json; fact captureRestarted "$(capture devices4.json)"
    touch /var/lib/recorderd/kept-data
    apt-get remove -y recorderd > /dev/null 2>&1
    [ -e /var/lib/recorderd/kept-data ] && [ -e /etc/recorderd/recorderd.json ] && fact afterRemove kept
    dpkg --purge recorderd > /dev/null 2>&1
    [ ! -e /var/lib/recorderd ] && [ ! -e /etc/recorderd ] && fact afterPurge gone
    mark purged
    exit 0
    """#
}
