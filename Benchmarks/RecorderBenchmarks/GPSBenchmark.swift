import Foundation
import RecorderTestSupport
import Logging
import RecorderClient
import RecorderConfiguration
import RecorderDaemon
import RecorderEngine
import RecorderModel
import RecorderRuntime

/// gpsd → recorderd latency, side by side with `gpspipe -w` on the same gpsd (gpsfake replaying
/// a real u-blox log): per TPV, arrival at a recorderd live subscriber minus arrival at gpspipe,
/// and record `uptime` (when recorderd's source read it) minus arrival at gpspipe; CPU per fix.
enum GPSBenchmark {
    /// Identifies one TPV across clients: time of day (the date may be rollover-corrected) and eph.
    static func fixKey(time: String, eph: Double?) -> String {
        String(time.split(separator: "T")[1].prefix(12)) + "/" + (eph.map { String($0) } ?? "")
    }

    /// Splits timestamped chunks into lines; the first arrival time of each key `key` gives.
    static func firstArrivals(_ chunks: [(Double, Data)], key: (Data) -> String?) -> [String: Double] {
        var arrivals: [String: Double] = [:]
        var buffer = Data()
        for (arrival, chunk) in chunks {
            buffer.append(chunk)
            while let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(buffer[buffer.startIndex..<nl])
                buffer.removeSubrange(buffer.startIndex...nl)
                if let k = key(line), arrivals[k] == nil { arrivals[k] = arrival }
            }
        }
        return arrivals
    }

    static func run(log: String) async {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let port = 20000 + Int(getpid() % 20000)
        // Its process group (gpsfake and its gpsd) is killed when it goes (`ChildProcess`'s deinit).
        let gpsfake = try! await ChildProcess("/usr/bin/gpsfake", ["-1", "-q", "-P", "\(port)", "-c", "0.02", "-W", "2", log],
                                              output: .file("/dev/null"))

        let directory = Benchmarks.temporaryDirectory()
        var configuration = DaemonConfiguration()
        configuration.socket = directory + "/control.sock"
        configuration.dataDirectory = directory + "/data"
        configuration.devices = [DeviceConfiguration(name: "gps0", kind: "gpsd", json: .object([
            "name": .string("gps0"), "kind": .string("gpsd"), "port": .number(Double(port)),
        ]))]
        let daemon = RecorderDaemon(configuration: configuration, components: .recorderd, baseDirectory: "/", logger: logger)
        try! await daemon.prepare()
        let client = try! await RecorderClient.connect(socketPath: configuration.socket)
        let run = try! await client.startTask(identifier: "gps", asyncActions: [
            AsyncActionConfiguration(identifier: "location", options: .distance(DistanceOptions())),
        ])
        // The file: an inotify watcher timestamps each append of the recording's file.
        let filePath = run.runDirectory + "/location.jsonl"
        let fileChunks = LockedValue<[(Double, Data)]>([])
        let inotify = inotify_init1(Int32(IN_CLOEXEC))
        _ = inotify_add_watch(inotify, filePath, UInt32(IN_MODIFY))
        let fileWatcher = Thread {
            let file = FileHandle(forReadingAtPath: filePath)!
            var events = [UInt8](repeating: 0, count: 4096)
            while read(inotify, &events, events.count) > 0 {
                let now = SystemClock.monotonicUptime()
                let chunk = file.availableData
                if !chunk.isEmpty { fileChunks.withLock { $0.append((now, chunk)) } }
            }
        }
        fileWatcher.start()
        let stream = try! await client.subscribe(device: "gps0")
        var iterator = stream.makeAsyncIterator()

        // The peer: gpspipe, its lines timestamped on arrival on a reader thread.
        try? await Task.sleep(for: .seconds(1))
        let peer = try! await ChildProcess("/usr/bin/gpspipe", ["-w", "127.0.0.1:\(port)"], output: .capturedWithoutErrors)
        // Raw chunks with their arrival time; parsed after the run (parsing is not recorderd's CPU).
        let peerChunks = LockedValue<[(Double, Data)]>([])
        let peerOutput = peer.outputDescriptor
        let reader = Thread {
            let handle = FileHandle(fileDescriptor: peerOutput, closeOnDealloc: false)
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                let now = SystemClock.monotonicUptime()
                peerChunks.withLock { $0.append((now, chunk)) }
            }
        }
        reader.start()

        let cpu0 = Benchmarks.cpuSeconds()
        var subscriberArrivals: [(key: String, arrival: Double, uptime: Double)] = []
        let deadline = SystemClock.monotonicUptime() + 20
        while let records = try? await iterator.next() {
            let now = SystemClock.monotonicUptime()
            for r in records where r.isSample && r.mode != "none" {
                guard let date = r.timestampDate, let uptime = r.uptime else { continue }
                subscriberArrivals.append((fixKey(time: date, eph: r.horizontalAccuracy), now, uptime))
            }
            if subscriberArrivals.count >= 40 || now > deadline { break }
        }
        let cpu = Benchmarks.cpuSeconds() - cpu0
        let result = try! await run.finish()
        let fixes = result.asyncResults.first?.file?.sampleCount ?? 0
        _ = try? await peer.stop(signal: SIGKILL)
        let peers = firstArrivals(peerChunks.withLock { $0 }) { line in
            guard let o = try? JSONSerialization.jsonObject(with: line) as? [String: Any], o["class"] as? String == "TPV",
                  let time = o["time"] as? String, (o["mode"] as? Int ?? 0) >= 2 else { return nil }
            return fixKey(time: time, eph: o["eph"] as? Double)
        }
        close(inotify)
        let fileArrivals = firstArrivals(fileChunks.withLock { $0 }) { line in
            guard let r = try? JSONDecoder().decode(Record.self, from: line), r.isSample, let date = r.timestampDate else { return nil }
            return fixKey(time: date, eph: r.horizontalAccuracy)
        }
        var subscriberLag: [Double] = []
        var sourceLag: [Double] = []
        var fileLag: [Double] = []
        for s in subscriberArrivals {
            guard let p = peers[s.key] else { continue }
            subscriberLag.append((s.arrival - p) * 1e6)
            sourceLag.append((s.uptime - p) * 1e6)
            if let f = fileArrivals[s.key] { fileLag.append((f - p) * 1e6) }
        }
        subscriberLag.sort()
        sourceLag.sort()
        fileLag.sort()
        func pct(_ a: [Double], _ q: Double) -> Double { a.isEmpty ? .nan : a[min(a.count - 1, Int(Double(a.count) * q))] }
        Benchmarks.say(String(format: "gpsd: %d fixes matched with gpspipe; minus gpspipe's arrival: recorderd source read p50 %.0f µs, p99 %.0f µs; in the file (inotify) p50 %.0f µs, p99 %.0f µs (%d); at a subscriber p50 %.0f µs, p99 %.0f µs; %.0f µs CPU per fix (%d fixes recorded)",
                            subscriberLag.count, pct(sourceLag, 0.5), pct(sourceLag, 0.99), pct(fileLag, 0.5), pct(fileLag, 0.99), fileLag.count,
                            pct(subscriberLag, 0.5), pct(subscriberLag, 0.99),
                            cpu / Double(max(1, fixes)) * 1e6, fixes))
        client.close()
        await daemon.shutdown()
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let raw = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            let args = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if args.first?.hasSuffix("gpsd") == true, let i = args.firstIndex(of: "-S"), i + 1 < args.count, args[i + 1] == "\(port)" { kill(pid, SIGKILL) }
        }
    }
}
