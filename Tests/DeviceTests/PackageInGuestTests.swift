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
    /// The package `scripts/build-deb.sh` built (CI builds it before the tests).
    static var package: String? {
        let folder = VMGuest.packageRoot + "/.build-deb"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasPrefix("recorderd_") && $0.hasSuffix(".deb") }.sorted().last.map { folder + "/" + $0 }
    }

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
    @Test(.enabled(if: enabled("PackageInGuestTests")), .timeLimit(.minutes(8)))
    func installedPackageRunsBySocketActivationUnderItsHardening() async throws {
        let deb = try #require(Self.package, "no .build-deb/recorderd_*.deb: run scripts/build-deb.sh")
        let name = URL(fileURLWithPath: deb).lastPathComponent
        let outcome = try await VMGuest.run(Self.installScript.replacingOccurrences(of: "@DEB@", with: name), files: [name: deb], timeout: 420)
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
        let dropped = records.filter { $0.isGap && $0.sensorType == "accelerometer" }.compactMap(\.droppedSamples).reduce(0, +)
        let ticks = Int(((uptimes.last! - uptimes.first!) * 100).rounded()) + 1
        #expect(abs(accelerometer.count + dropped - ticks) <= 2, "\(accelerometer.count) samples + \(dropped) dropped for \(ticks) ticks")
        #expect(abs(steps[steps.count / 2] - 0.01) < 0.002, "median step \(steps[steps.count / 2])")
        print("GUEST polled bmi160 at 100 Hz: \(accelerometer.count) samples, \(dropped) dropped in \(ticks) ticks; "
            + "step median \(steps[steps.count / 2] * 1000) ms, p1 \(steps[steps.count / 100] * 1000) ms, p99 \(steps[steps.count * 99 / 100] * 1000) ms")
    }

    /// The package as lintian (Debian's own checker) sees it: no error, no warning; the
    /// configuration a conffile; the maintainer scripts present.
    @Test(.enabled(if: enabled("PackageInGuestTests")), .timeLimit(.minutes(3)))
    func lintianFindsNothingAndTheConfigurationIsAConffile() async throws {
        let deb = try #require(Self.package, "no .build-deb/recorderd_*.deb: run scripts/build-deb.sh")
        let lintian = try await ChildProcess("/usr/bin/lintian", ["--tag-display-limit", "0", deb])
        let status = try await lintian.wait(timeout: 150)
        let findings = lintian.printed.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("E:") || $0.hasPrefix("W:") }
        #expect(status == 0 && findings.isEmpty, "\(lintian.printed)")
        let info = try await ChildProcess("/usr/bin/dpkg-deb", ["--info", deb])
        #expect(try await info.wait(timeout: 30) == 0)
        let control = info.printed
        for part in ["conffiles", "postinst", "prerm", "postrm", "Depends: libasound2", "libiio0", "libgps"] {
            #expect(control.contains(part), "\(part) missing: \(control)")
        }
        let listing = try await ChildProcess("/usr/bin/dpkg-deb", ["--info", deb, "conffiles"])
        #expect(try await listing.wait(timeout: 30) == 0)
        #expect(listing.printed.trimmingCharacters(in: .whitespacesAndNewlines) == "/etc/recorderd/recorderd.json")
    }

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
    modprobe i2c-stub chip_addr=0x68
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
    recorderctl devices --json > devices.json; cat devices.json
    fact listed "$(grep -o '"name" *: *"bmi160"' devices.json | head -1 | sed 's/.*"\(bmi160\)"/\1/')"
    # A changed configuration (the BMI160 added as a device), checked and applied by reload.
    sed -i 's|"devices": \[|"devices": [{"name": "bmi", "kind": "iio", "uri": "local:", "device": "bmi160", "frequency": 100},|' /etc/recorderd/recorderd.json
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
    started=$(recorderctl start bmi-polled --actions '[{"identifier": "motion", "type": "motion", "device": "bmi", "recorderTypes": ["accelerometer", "gyro"], "frequency": 100}]')
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
