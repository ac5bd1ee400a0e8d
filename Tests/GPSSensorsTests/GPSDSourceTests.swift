import Foundation
import GPSSensors
import RecorderConfiguration
import RecorderEngine
import RecorderExport
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderRuntime
import RecorderTestSupport
import Testing

/// A real gpsd (started by gpsfake) replaying a real receiver log on a free port.
struct FakeGPSD {
    let process: ChildProcess
    let port: Int

    static let logs = Fixtures.root + "/gps"

    static func freePort() -> Int { LoopbackTCP.freePort() }

    /// Starts `gpsfake` on a free port (or `port`); `delay` seconds per sentence.
    static func start(log: String, delay: Double = 0.005, port: Int? = nil) async throws -> FakeGPSD {
        let port = port ?? freePort()
        let process = try await ChildProcess("/usr/bin/gpsfake", ["-1", "-q", "-P", "\(port)", "-c", "\(delay)", "-W", "2", logs + "/" + log])
        return FakeGPSD(process: process, port: port)
    }

    /// Stops gpsfake and the gpsd it started (gpsfake leaves it running), each by its PID.
    func stop() async throws {
        // gpsfake does not act on SIGTERM while it waits out its -W delay.
        try await process.stop(signal: SIGKILL)
        // gpsd 3.22 ignores SIGTERM while gpsfake's control socket is gone: stop it for good.
        // Returns once each has ended (its pidfd says so; at most 5 s): nothing listens any more.
        for pid in Self.gpsdPIDs(port: port) {
            kill(pid, SIGKILL)
            #expect(try await ProcessEnd.await(pid, timeout: 5), "gpsd \(pid) did not end")
        }
        #expect(!Self.isListening(port: port), "gpsd still listens on \(port)")
    }

    /// True when something accepts connections on 127.0.0.1:`port`.
    static func isListening(port: Int) -> Bool { LoopbackTCP.accepts(port: port) }

    /// PIDs of gpsd processes serving `port` (from /proc).
    static func gpsdPIDs(port: Int) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                  let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let arguments = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard arguments.first?.hasSuffix("gpsd") == true,
                  let i = arguments.firstIndex(of: "-S"), i + 1 < arguments.count, arguments[i + 1] == "\(port)" else { return nil }
            return pid
        }
    }

    /// gpsd's own TPV reports for the log, by time of day (the date may be week-rollover corrected).
    static func goldenTPVs(_ log: String) throws -> [String: [[String: Any]]] {
        var byTime: [String: [[String: Any]]] = [:]
        // Split on bytes: the file mixes CRLF and LF, and Swift reads "\r\n" as one Character.
        for line in try Data(contentsOf: URL(fileURLWithPath: logs + "/" + log + ".chk")).split(separator: UInt8(ascii: "\n")) {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any],
                  object["class"] as? String == "TPV", let time = object["time"] as? String else { continue }
            byTime[timeOfDay(time), default: []].append(object)
        }
        return byTime
    }

    /// `HH:MM:SS.mmm` of an ISO-8601 time.
    static func timeOfDay(_ iso: String) -> String {
        let t = iso.split(separator: "T")[1]
        return String(t.prefix(12))
    }
}

@Suite("gpsd source against a real gpsd (gpsfake)", .serialized)
struct GPSDSourceTests {
    func device(port: Int, name: String = "gps0") -> DeviceConfiguration {
        DeviceConfiguration(name: name, kind: "gpsd", json: .object([
            "name": .string(name), "kind": .string("gpsd"), "host": .string("127.0.0.1"), "port": .number(Double(port)),
        ]))
    }

    func registries(port: Int) throws -> (DeviceRegistry, TaskRunRegistry, String) {
        var configuration = DaemonConfiguration()
        configuration.devices = [device(port: port)]
        let devices = DeviceRegistry(configuration: configuration, backends: [GPSDBackend()], baseDirectory: "/", logger: Fixtures.logger)
        #expect(devices.probeAll() == 1)
        let data = try Fixtures.temporaryDirectory()
        return (devices, TaskRunRegistry(dataDirectory: data, devices: devices, ringSeconds: 30, logger: Fixtures.logger), data)
    }

    /// Waits for `count` location fixes (mode 2D or 3D) from the device.
    func waitForFixes(_ device: Device, _ count: Int) async throws {
        try await Fixtures.waitForFrames(device, count) { if case .location(let f) = $0 { return f.mode >= 2 } else { return false } }
    }

    /// The log plays in real time while the test takes its fixes step by step: on a thread of
    /// its own (on the pool, a CI run's awaits stalled for 11 s and the log ended first).
    @Test(.timeLimit(.minutes(2)), .ownThread)
    func everyRecordedFixAgreesWithGpsdsOwnTPV() async throws {
        // Played at 20 ms a sentence: the log's 61 fixes over 28 s, of which the test takes 1 + 2 × 12,
        // leaving a loaded run (CI's ASan pass) room before the log ends. (At 5 ms gpsd reports some
        // epochs from partial cycles: fewer fixes match its stored output, and libgps's view of
        // one could differ from the JSON gpspipe read.)
        let gpsd = try await FakeGPSD.start(log: "ublox-neo-m9n-nmea.log", delay: 0.02)
        defer { kill(gpsd.process.pid, SIGTERM); for pid in FakeGPSD.gpsdPIDs(port: gpsd.port) { kill(pid, SIGKILL) } }
        let (devices, runs, _) = try registries(port: gpsd.port)
        let start = try await runs.start(taskIdentifier: "walk", asyncActions: [
            AsyncActionConfiguration(identifier: "location", options: .distance(DistanceOptions(saveCoordinates: true))),
            AsyncActionConfiguration(identifier: "private", options: .distance(DistanceOptions())),
        ])
        #expect(start.errors.isEmpty)
        try await waitForFixes(try devices.device(named: "gps0"), 1)
        // The peer: gpspipe reading the same gpsd, from now on.
        let peerOutput = try Fixtures.temporaryDirectory() + "/gpspipe.json"
        let peer = try await ChildProcess("/usr/bin/gpspipe", ["-w", "-o", peerOutput, "127.0.0.1:\(gpsd.port)"])
        // A live subscriber, read after the run: the same record objects as the file.
        let subscriber = try LiveStream(subscription: 1, device: try devices.device(named: "gps0"), types: nil, rate: nil, clock: SystemClock()) {}
        defer { subscriber.close() }
        for step in ["walk/walking.outbound", "walk/walking.return"] {
            _ = try await runs.startStep(start.taskRunUUID, path: step)
            try await waitForFixes(try devices.device(named: "gps0"), 12)
            _ = try await runs.finishStep(start.taskRunUUID, path: step)
        }
        let result = try await runs.finish(start.taskRunUUID)
        // gpspipe waits for data through SIGTERM: end gpsd, and it exits at EOF with its output flushed.
        try await gpsd.stop()
        _ = try await peer.wait(timeout: 15)
        // The stream's records as JSON lines (the daemon wraps them in a notification).
        let streamed = try subscriber.drain().split(separator: UInt8(ascii: "\n")).map { try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
        #expect(streamed.count >= 16)
        // (Drained after gpsd was stopped: the stream also holds its "connection lost" marker.)
        let streamedFixes = streamed.filter { $0["event"] == nil }
        #expect(streamedFixes.allSatisfy { $0["sensorType"] as? String == "location" && $0["stepPath"] == nil && $0["latitude"] == nil }, "\(streamed.prefix(3))")
        #expect(streamed.filter { $0["timestampDate"] != nil }.count >= 16)
        var live: [String: [[String: Any]]] = [:]
        for line in try Data(contentsOf: URL(fileURLWithPath: peerOutput)).split(separator: UInt8(ascii: "\n")) {
            guard let tpv = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any],
                  tpv["class"] as? String == "TPV", let time = tpv["time"] as? String else { continue }
            live[FakeGPSD.timeOfDay(time), default: []].append(tpv)
        }
        #expect(live.count >= 10)
        #expect(result.asyncResults.compactMap(\.file).count == 2)

        let golden = try FakeGPSD.goldenTPVs("ublox-neo-m9n-nmea.log")
        let records = try Fixtures.records(start.runDirectory + "/location.jsonl").filter(\.isSample)
        #expect(records.count >= 22)
        func agrees(_ r: Record, _ tpv: [String: Any], keys: [(String, Double?)]) -> Bool {
            keys.allSatisfy { key, value in
                guard let expected = tpv[key] as? Double else { return value == nil }
                return value.map { abs($0 - expected) < 1e-6 } ?? false
            }
        }
        // The truth for each fix is what gpsd reported at that moment: gpspipe, reading the same
        // gpsd, must have seen it, every field alike. gpsd's stored output for the log checks the
        // decoding against an independent run of gpsd, but how gpsd groups a log's sentences into
        // reports depends on their pace, which a loaded machine changes (a CI run saw 7 of 25 fixes
        // reported from a partial cycle): most fixes, not all, must match it.
        // gpspipe connected after the first fix, possibly within an epoch that gpsd had already
        // reported once (a partial cycle) and then reported again: the first second it saw is
        // not compared (a full run once found a fix there that matched none of its TPVs).
        let joined = live.keys.min()
        var matchedGolden = 0
        var matchedLive = 0
        var unmatchedGolden: [String] = []
        for r in records {
            guard let date = r.timestampDate else { continue }
            let time = FakeGPSD.timeOfDay(date)
            #expect(golden[time] != nil, "no TPV of the log at \(date)")
            let stable: [(String, Double?)] = [("speed", r.speed), ("track", r.course), ("epv", r.verticalAccuracy),
                                               ("altMSL", r.altitude), ("lat", r.latitude), ("lon", r.longitude)]
            if (golden[time] ?? []).contains(where: { agrees(r, $0, keys: stable) }) {
                matchedGolden += 1
            } else {
                unmatchedGolden.append(date)
            }
            if let peerTPVs = live[time], time != joined {
                #expect(peerTPVs.contains { agrees(r, $0, keys: stable + [("eph", r.horizontalAccuracy)]) },
                        "fix at \(date) matches none of the TPVs gpspipe read from the same gpsd")
                matchedLive += 1
            }
        }
        print("gpsd agreement: \(records.count) fixes, \(matchedGolden) match gpsd's stored TPVs, \(matchedLive) compared with gpspipe's")
        #expect(matchedGolden >= 12, "\(matchedGolden) fixes match gpsd's stored TPVs; not: \(unmatchedGolden)")
        #expect(matchedLive >= 10)
        #expect(records.allSatisfy { $0.x == nil })
        // Distance per step in the task result equals the records' relative distances in that step.
        let file = try #require(result.asyncResults.compactMap(\.file).first { $0.identifier == "location" })
        for step in ["walk/walking.outbound", "walk/walking.return"] {
            let walked = records.filter { $0.stepPath == step }.compactMap(\.relativeDistance).reduce(0, +)
            #expect(abs((file.distanceByStep?[step] ?? -1) - walked) < 1e-9)
        }
        #expect(abs((file.totalDistance ?? -1) - (records.last?.totalDistance ?? -2)) < 1e-9)
        #expect(file.unusedFixes == records.filter { $0.relativeDistance == nil }.count)
        #expect(file.unusedFixes == records.filter { $0.mode == "none" || $0.latitude == nil || ($0.horizontalAccuracy ?? 99) >= 20 }.count)
        // Coordinates only where asked.
        let unasked = try Fixtures.records(start.runDirectory + "/private.jsonl").filter(\.isSample)
        #expect(unasked.count == records.count)
        #expect(unasked.allSatisfy { $0.latitude == nil && $0.longitude == nil })

        // The MCAP export, read by Foxglove's reader: the fixes with coordinates as
        // foxglove.LocationFix (the map panel's schema), the others as recorded on `fix`; each
        // recorder on its own topics (both record locations of gps0); coordinates as recorded.
        let mcap = try Fixtures.temporaryDirectory() + "/walk.mcap"
        _ = try MCAPExporter().export(try RunSource(directory: start.runDirectory), to: mcap)
        let check = try await MCAPCheck.run(mcap)
        let positioned = records.filter { $0.latitude != nil && $0.longitude != nil }
        #expect(check.topics["/location/location"] == positioned.count && positioned.count > 10)
        #expect(check.topics["/location/fix"] == (records.count == positioned.count ? nil : records.count - positioned.count))
        #expect(check.topics["/private/location"] == nil && check.topics["/private/fix"] == unasked.count)
        #expect(check.schemas["/location/location"] == "foxglove.LocationFix" && check.decreasing.isEmpty)
        let fix = try #require(check.first["/location/location"])
        // (Compared within 1e-12 relative: Foundation's JSONSerialization reads some numbers a few
        // units in the last place off the correctly rounded value.)
        func close(_ a: Double?, _ b: Double?) -> Bool { guard let a, let b else { return false }; return abs(a - b) <= 1e-12 * max(1, abs(b)) }
        #expect(close((fix["latitude"] as? NSNumber)?.doubleValue, positioned.first?.latitude)
                && close((fix["longitude"] as? NSNumber)?.doubleValue, positioned.first?.longitude), "\(fix)")
        if let accuracy = positioned.first?.horizontalAccuracy, positioned.first?.verticalAccuracy != nil {
            let covariance = (fix["position_covariance"] as? [NSNumber])?.map(\.doubleValue)
            #expect(close(covariance?.first, accuracy * accuracy) && covariance?.count == 9 && (fix["position_covariance_type"] as? NSNumber)?.intValue == 2, "\(fix)")
        }

        // Distance against an independent computation (equirectangular: exact enough at these
        // centimetre-to-metre steps, and a different formula from the recorder's haversine).
        var total = 0.0
        var previous: (Double, Double)?
        for r in records {
            guard r.mode != "none", let lat = r.latitude, let lon = r.longitude, let eph = r.horizontalAccuracy, eph < 20 else {
                #expect(r.relativeDistance == nil)
                continue
            }
            if let (plat, plon) = previous {
                let x = (lon - plon) * .pi / 180 * cos((lat + plat) / 2 * .pi / 180)
                let y = (lat - plat) * .pi / 180
                total += 6_371_008.8 * (x * x + y * y).squareRoot()
            }
            previous = (lat, lon)
            #expect(abs((r.totalDistance ?? -1) - total) < 1e-6)
        }
    }

    /// Waits for a frame measured since `since` that matches `predicate`.
    func waitFor(_ device: Device, since: Double, _ predicate: @escaping (SensorFrame) -> Bool) async throws {
        try await Fixtures.waitForFrames(device, 1, since: since, matching: predicate)
    }

    @Test(.timeLimit(.minutes(1)), .ownThread)
    func gpsdKilledAndRestartedGivesAnErrorMarkerAGapAndFixesAgain() async throws {
        let first = try await FakeGPSD.start(log: "ublox-neo-m9n-nmea.log")
        let (devices, runs, _) = try registries(port: first.port)
        let device = try devices.device(named: "gps0")
        let start = try await runs.start(taskIdentifier: "walk", asyncActions: [
            AsyncActionConfiguration(identifier: "location", options: .distance(DistanceOptions())),
        ])
        try await waitForFixes(device, 10)
        // Frames are looked for from before the stop: the source reports the loss at once.
        let stopped = SystemClock.monotonicUptime()
        try await first.stop()
        try await waitFor(device, since: stopped) { if case .fault = $0 { return true } else { return false } }
        // A slower replay (~28 s): the source's back-off (0.5 s doubling to 8 s) may reconnect
        // several seconds in on a loaded machine, and fixes must still be coming then.
        let second = try await FakeGPSD.start(log: "ublox-neo-m9n-nmea.log", delay: 0.02, port: first.port)
        defer { kill(second.process.pid, SIGKILL); for pid in FakeGPSD.gpsdPIDs(port: second.port) { kill(pid, SIGKILL) } }
        try await waitFor(device, since: stopped) { if case .gap = $0 { return true } else { return false } }
        try await waitForFixes(device, 5)
        #expect(device.info.details?["connection"] == "connected")
        #expect(device.info.details?["fixMode"] == "3D")
        _ = try await runs.finish(start.taskRunUUID)
        try await second.stop()

        let records = try Fixtures.records(start.runDirectory + "/location.jsonl")
        // (A first marker may say gpsd was not reachable yet: gpsfake's gpsd listens ~0.5 s in.)
        let errorIndex = try #require(records.firstIndex { $0.errorDescription == "gpsd connection lost" })
        let gapIndex = try #require(records.firstIndex { $0.isGap })
        #expect(gapIndex > errorIndex)
        #expect((records[gapIndex].droppedSamples ?? 0) > 0)
        #expect(records[..<errorIndex].filter(\.isSample).count >= 10)
        #expect(records[gapIndex...].filter(\.isSample).count >= 5)
    }

    /// libgps waits with select(): a gpsd socket numbered 1,024 or more would abort the process
    /// (glibc's fd_set check). With every descriptor below 1,100 taken (a daemon with many
    /// connections), the source reports a fault instead and retries; once descriptors are free
    /// again, fixes arrive.
    @Test(.timeLimit(.minutes(2)), .ownThread)
    func aProcessWithOverAThousandFilesOpenStillReadsGpsd() async throws {
        // The log played slowly (1,414 sentences, ~40 s): gpsd still serves when the test, slowed
        // by everything else running, gets to its last fixes (played at 5 ms a sentence, the log
        // had ended by then under CI's load).
        let gpsd = try await FakeGPSD.start(log: "ublox-neo-m9n-nmea.log", delay: 0.03)
        defer { kill(gpsd.process.pid, SIGKILL); for pid in FakeGPSD.gpsdPIDs(port: gpsd.port) { kill(pid, SIGKILL) } }
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        try #require(limit.rlim_cur >= 1200, "the open-file limit \(limit.rlim_cur) is too low for this test")
        let (devices, _, _) = try registries(port: gpsd.port)
        let device = try devices.device(named: "gps0")
        // gpsd serves (the device then stops: nothing holds it).
        try await waitForFixes(device, 1)
        let ring = try #require(device.ring)
        let watcher = ring.addReader(fromUptime: nil) {}
        defer { watcher.close() }
        // Other tests in this process open and close descriptors meanwhile: one of them may free
        // a low number just as the source connects, which then simply works. Such an attempt is
        // retried; what must never happen is an abort, and one attempt must see the fault.
        var fault: String?
        for _ in 0..<5 where fault == nil {
            var held: [Int32] = []
            while true {
                let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { break }
                held.append(fd)
                if fd >= 1100 { break }
            }
            let lease = try await offPool { try device.acquire() }
            var connected = false
            for _ in 0..<200 where fault == nil && !connected {
                var frames: [SensorFrame] = []
                _ = watcher.read(into: &frames)
                for frame in frames {
                    if case .fault(_, let description) = frame, description.contains("descriptor below 1024") { fault = description }
                    if case .location = frame { connected = true }
                }
                if fault == nil && !connected { try await Task.sleep(for: .milliseconds(50)) }
            }
            for fd in held { close(fd) }
            if fault != nil {
                // Descriptors are free again: the retry connects and fixes arrive.
                try await waitForFixes(device, 2)
            }
            lease.release()
        }
        #expect(fault != nil, "no fault about the descriptor in five attempts")
    }

    @Test(.timeLimit(.minutes(1)), .ownThread)
    func gpsDeviceWatchesOnlyThatReceiver() async throws {
        // The slower replay (~28 s, as the restart test's): gpsfake plays its log once and gpsd
        // goes with it, and on a loaded machine (two CI rehearsals) the default pace (~7 s) ended
        // before the second registry had connected.
        let gpsd = try await FakeGPSD.start(log: "ublox-neo-m9n-nmea.log", delay: 0.02)
        defer { kill(gpsd.process.pid, SIGKILL); for pid in FakeGPSD.gpsdPIDs(port: gpsd.port) { kill(pid, SIGKILL) } }
        func device(_ name: String, _ gpsDevice: String?) -> DeviceConfiguration {
            var json: [String: JSONValue] = ["name": .string(name), "kind": .string("gpsd"), "port": .number(Double(gpsd.port))]
            if let gpsDevice { json["gpsDevice"] = .string(gpsDevice) }
            return DeviceConfiguration(name: name, kind: "gpsd", json: .object(json))
        }
        // gpsd is serving once an unfiltered device has a fix; devices.list then shows the
        // receiver's path (from gpsd's TPV reports).
        var first = DaemonConfiguration()
        first.devices = [device("any", nil), device("wrong", "/dev/ttyNONE")]
        let devices = DeviceRegistry(configuration: first, backends: [GPSDBackend()], baseDirectory: "/", logger: Fixtures.logger)
        #expect(devices.probeAll() == 2)
        let wrong = try devices.device(named: "wrong")
        let wrongLease = try wrong.acquire()
        defer { wrongLease.release() }
        let wrongReader = wrong.ring!.addReader(fromUptime: nil) {}
        defer { wrongReader.close() }
        let anyLease = try devices.device(named: "any").acquire()
        defer { anyLease.release() }
        try await waitForFixes(try devices.device(named: "any"), 1)
        let any = try devices.device(named: "any")
        let receiver = try #require(any.info.details?["receivers"], "no receiver path in devices.list")
        #expect(receiver.hasPrefix("/dev/"))
        #expect(any.info.details?["connection"] == "connected")
        var second = DaemonConfiguration()
        second.devices = [device("right", receiver)]
        let filtered = DeviceRegistry(configuration: second, backends: [GPSDBackend()], baseDirectory: "/", logger: Fixtures.logger)
        #expect(filtered.probeAll() == 1)
        try await waitForFixes(try filtered.device(named: "right"), 10)
        var frames: [SensorFrame] = []
        _ = wrongReader.read(into: &frames)
        #expect(!frames.contains { if case .location = $0 { return true } else { return false } })
        #expect(wrong.info.details?["gpsDevice"] == "/dev/ttyNONE")
        try await gpsd.stop()
    }

    @Test(.timeLimit(.minutes(1)), .ownThread)
    func withoutGpsdTheRecordingCarriesAnErrorMarker() async throws {
        let port = FakeGPSD.freePort()
        let (devices, runs, _) = try registries(port: port)
        let device = try devices.device(named: "gps0")
        let start = try await runs.start(taskIdentifier: "walk", asyncActions: [
            AsyncActionConfiguration(identifier: "location", options: .distance(DistanceOptions())),
        ])
        // The fault frame is what the source delivers first when gpsd is absent.
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let reader = device.ring!.addReader(fromUptime: 0) { continuation.yield() }
        var scratch: [SensorFrame] = []
        _ = reader.read(into: &scratch)
        if scratch.isEmpty { for await _ in signals { _ = reader.read(into: &scratch); if !scratch.isEmpty { break } } }
        reader.close()
        let result = try await runs.finish(start.taskRunUUID)
        let records = try Fixtures.records(start.runDirectory + "/location.jsonl")
        let errors = records.filter { $0.event == "error" }
        #expect(errors.count == 1)
        #expect(errors.first?.errorDescription?.contains("gpsd not reachable at 127.0.0.1:\(port)") == true)
        #expect(result.asyncResults.first?.file?.errorCount == 1)
        #expect(device.info.details?["connection"]?.hasPrefix("not connected") == true)
    }
}
