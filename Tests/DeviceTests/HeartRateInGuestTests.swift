import Foundation
import RecorderModel
import RecorderTestSupport
import Testing

/// A Bluetooth LE heart-rate sensor through real BlueZ in a guest (`VMGuest`): Debian's kernel
/// with `hci_vhci`, two virtual LE controllers made by `btvirt` (Debian's bluez-test-tools),
/// one `bluetoothd` driving both — recorderd, installed from its package and running as its
/// service, reaches the sensor through `hci0`; the sensor is `scripts/vm/heart-rate-peripheral.py`,
/// a GATT server and advertisement registered on `hci1` through BlueZ's own D-Bus API, sending a
/// known sequence of notifications.
@Suite("Heart rate through BlueZ in a guest", .serialized)
struct HeartRateInGuestTests {
    static func enabled(_ name: String) -> Bool { PackageInGuestTests.enabled(name) }

    /// What the peripheral sends (its `SEQUENCE`), as the Heart Rate Service specification reads
    /// each: rate, contact, energy expended, RR intervals in 1/1024 s.
    static let expected: [(rate: Int, contact: Bool?, energy: Int?, rr: [Int])] = [
        (72, true, nil, []),
        (71, true, nil, [853]),
        (140, true, nil, [438, 440]),
        (96, true, 0x1234, [640, 638, 641]),
        (0, false, nil, []),
        (0, false, nil, []),
        (75, true, nil, []),
        (76, nil, nil, []),
        (300, true, 0, []),
        (80, nil, nil, Array(repeating: 768, count: 7)),
    ]

    /// The sensor is found, connected and subscribed by the service (as its own user, under its
    /// hardening); every notification is a record with exactly the values sent, stamped when it
    /// arrived; the sensor drops out for 10 s mid-recording (the peripheral disconnects and stops
    /// advertising) and the silence is one gap record with its duration, after a fault record;
    /// the battery level and body sensor location are read.
    @Test(.enabled(if: enabled("HeartRateInGuestTests")), .timeLimit(.minutes(8)))
    func everyNotificationIsRecordedExactlyAndAnOutageIsAGap() async throws {
        let deb = try #require(PackageInGuestTests.package, "no .build-deb/recorderd_*.deb: run scripts/build-deb.sh")
        let name = URL(fileURLWithPath: deb).lastPathComponent
        let peripheral = VMGuest.packageRoot + "/scripts/vm/heart-rate-peripheral.py"
        let outcome = try await VMGuest.run(Self.script.replacingOccurrences(of: "@DEB@", with: name),
                                            files: [name: deb, "peripheral.py": peripheral], timeout: 420)
        let facts = PackageInGuestTests.facts(outcome.output)
        #expect(outcome.status == 0, "\(outcome.output.suffix(3000))\n--- console:\n\(outcome.console.suffix(2000))")
        #expect(facts["installed"] == "ok" && facts["adapters"] == "2", "\(facts)")
        #expect(facts["ready"] == "0" && facts["finished"] == "0" && facts["copied"] == "yes", "\(facts)\n\(outcome.output.suffix(3000))")
        // devices.list while streaming: connected, the battery and the location read.
        #expect(facts["connection"] == "connected", "\(facts)")
        #expect(facts["battery"] == "87 %" && facts["bodySensorLocation"] == "chest", "\(facts)")

        // What the peripheral handed to BlueZ, when (the guest's CLOCK_MONOTONIC).
        let sentLines = try String(contentsOfFile: outcome.share + "/sent.log", encoding: .utf8).split(whereSeparator: \.isNewline)
        let sent = sentLines.compactMap { line -> Double? in
            let parts = line.split(separator: " ")
            return parts.count == 2 && parts[1] != "dropped" && parts[1] != "back" ? Double(parts[0]) : nil
        }
        #expect(sent.count == Self.expected.count, "\(sentLines)")
        let records = try Fixtures.records(outcome.share + "/heartRate.jsonl")
        let beats = records.filter { $0.isSample && $0.sensorType == "heartRate" }
        try #require(beats.count == Self.expected.count, "\(beats.count) heart-rate records of \(Self.expected.count) sent:\n\(records)")
        for (record, want) in zip(beats, Self.expected) {
            #expect(record.heartRate == want.rate && record.contact == want.contact && record.energyExpended == want.energy
                && (record.rrIntervals ?? []) == want.rr.map { Double($0) / 1024 } && record.unit == "count/min", "\(record) vs \(want)")
        }
        // Stamped on arrival: after it was sent, before the next was.
        let latencies = zip(beats.compactMap(\.uptime), sent).map { $0 - $1 }
        #expect(latencies.allSatisfy { $0 >= 0 && $0 < 0.5 }, "\(latencies)")
        let sorted = latencies.sorted()
        print("GUEST heart rate: \(beats.count) notifications; sent → recorded p50 \(sorted[sorted.count / 2] * 1000) ms, "
            + "max \(sorted.last! * 1000) ms (debug build, TCG guest)")
        // The outage: a fault when the sensor went, one gap before the first notification after
        // it, spanning the silence.
        let gaps = records.filter { $0.isGap && $0.sensorType == "heartRate" }
        let gap = try #require(gaps.first, "no gap record:\n\(records)")
        #expect(gaps.count == 1)
        let gapIndex = try #require(records.firstIndex(of: gap))
        let seventh = try #require(records.firstIndex(of: beats[6]))
        #expect(gapIndex == seventh - 1, "the gap comes just before the first notification after the outage")
        let silence = beats[6].uptime! - beats[5].uptime!
        #expect(abs((gap.duration ?? 0) - silence) < 1e-6 && silence >= 10, "gap \(gap), silence \(silence) s")
        // At the sensor's 0.5 s interval, the beats it would have sent.
        #expect(abs((gap.droppedSamples ?? 0) - Int((silence / 0.5).rounded()) + 1) <= 2, "\(gap)")
        let faults = records.filter { $0.event == "error" }
        #expect(faults.contains { $0.errorDescription?.contains("disconnected") == true }, "\(faults)")
        let result = try TaskResult.makeDecoder().decode(TaskResult.self, from: Data(contentsOf: URL(fileURLWithPath: outcome.share + "/result.json")))
        let file = try #require(result.asyncResults.compactMap(\.file).first { $0.relativePath == "heartRate.jsonl" })
        #expect(file.units["heartRate"] == "count/min" && file.conventions?["heartRate"]?.contains("CLOCK_MONOTONIC") == true, "\(file)")
        #expect(file.gapCount == 1 && file.droppedSamples == gap.droppedSamples, "\(file)")
    }

    static let script = #"""
    set -u
    fact() { echo "fact $1=$2"; }
    cd /vmtest
    DEBIAN_FRONTEND=noninteractive apt-get install -y /vmtest/@DEB@ > /dev/null 2>&1 && fact installed ok
    modprobe bluetooth
    modprobe hci_vhci
    btvirt -l2 > /vmtest/btvirt.log 2>&1 &
    systemctl start bluetooth
    # BlueZ takes both controllers up: a state with no event to wait on here, polled, at most 30 s.
    for i in $(seq 300); do
      [ "$(busctl tree org.bluez 2>/dev/null | grep -c '/org/bluez/hci[0-9]*$')" = 2 ] && break; sleep 0.1
    done
    fact adapters "$(busctl tree org.bluez 2>/dev/null | grep -c '/org/bluez/hci[0-9]*$')"
    address=$(busctl get-property org.bluez /org/bluez/hci1 org.bluez.Adapter1 Address | cut -d'"' -f2)
    fact sensorAddress "$address"
    # The sensor: six notifications every 0.5 s, out of reach for 10 s, then the other four.
    python3 /vmtest/peripheral.py hci1 /vmtest/sent.log 0.5 6 10 > /tmp/peripheral.out 2>&1 &
    timeout 60 sh -c 'tail -n +1 -f /tmp/peripheral.out | grep -q -m1 ready'; fact ready $?
    sed -i "s|\"devices\": \[|\"devices\": [{\"name\": \"hr0\", \"kind\": \"heartRate\", \"address\": \"$address\", \"adapter\": \"hci0\"},|" /etc/recorderd/recorderd.json
    recorderctl status > /dev/null; fact status $?
    started=$(recorderctl start hr-test --actions '[{"identifier": "heartRate", "type": "heartRate", "device": "hr0"}]')
    uuid=$(echo "$started" | sed -n 1p); dir=$(echo "$started" | sed -n 2p)
    recorderctl tail hr0 --json --count 2 > /dev/null
    recorderctl devices --json > devices.json; cat devices.json
    detail() { tr -d '\n' < devices.json | grep -o "\"$1\" *: *\"[^\"]*\"" | head -1 | sed "s/^\"$1\" *: *\"//; s/\"$//"; }
    for k in connection battery bodySensorLocation contact; do fact $k "$(detail $k)"; done
    timeout 120 sh -c 'tail -n +1 -f /tmp/peripheral.out | grep -q -m1 "sent all"'; fact sentAll $?
    # The last notification reaches the service: devices.list counts them (polled, at most 10 s).
    for i in $(seq 100); do
      recorderctl devices --json > devices.json
      [ "$(detail notifications)" = 10 ] && break; sleep 0.1
    done
    recorderctl finish "$uuid" > /dev/null; fact finished $?
    cp "$dir/heartRate.jsonl" /vmtest/ && cp "$dir/taskResult.json" /vmtest/result.json && fact copied yes
    cat /tmp/peripheral.out
    journalctl -u recorderd --no-pager | tail -20
    exit 0
    """#
}
