import Foundation
import RecorderEngine
import RecorderJSON
import RecorderModel
import RecorderRuntime
import RecorderTestSupport

/// Start-up time and memory of the real `recorderd` executable with the example configuration
/// (`config/recorderd.json`: one replay device on the 1.7 MB mobgap walk), side by side with
/// gpsd (`BENCH_ONLY=footprint`):
/// - exec → `READY=1` on `NOTIFY_SOCKET` (what systemd waits for), and exec → the control socket
///   accepting a connection, for recorderd; exec → its socket accepting, for `gpsd -N`;
/// - resident memory 2 s after start, from `/proc/PID/smaps_rollup`, and where it goes
///   (`/proc/PID/smaps` grouped: the executable, the Swift runtime, Foundation with ICU, other
///   libraries, the heap and other anonymous memory);
/// - exec → `READY=1` with 1,000 finished runs in the data directory (start-up reads every run's
///   manifest to recover interrupted ones): 20 steps and a file result each.
enum FootprintBenchmark {
    static let runs = 10

    static var recorderd: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("recorderd").path
    }

    static func run(repository: String) async {
        guard FileManager.default.isExecutableFile(atPath: recorderd) else {
            return Benchmarks.say("footprint: skipped (build recorderd in the same configuration first: swift build -c release)")
        }
        var ready: [Double] = [], accepting: [Double] = [], peer: [Double] = []
        var memory: (ours: [String: Double], theirs: [String: Double]) = ([:], [:])
        for i in 0..<runs {
            let last = i == runs - 1
            let (r, a, m) = await startRecorderd(repository: repository, measureMemory: last)
            ready.append(r)
            accepting.append(a)
            let (p, pm) = await startGPSD(measureMemory: last)
            peer.append(p)
            if last { memory = (m, pm) }
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        func span(_ v: [Double]) -> String { String(format: "median %.1f ms (%.1f – %.1f)", median(v), v.min()!, v.max()!) }
        Benchmarks.say("footprint: \(runs) starts each, alternating")
        Benchmarks.say("start recorderd exec → READY=1: \(span(ready))")
        Benchmarks.say("start recorderd exec → control socket accepts: \(span(accepting))")
        Benchmarks.say("start gpsd -N exec → control socket accepts: \(span(peer))")
        Benchmarks.say(String(format: "start ratio recorderd / gpsd (socket accepts): %.1f×", median(accepting) / median(peer)))
        for (name, m) in [("recorderd", memory.ours), ("gpsd", memory.theirs)] {
            let parts = m.filter { $0.key.hasPrefix("part ") }.sorted { $0.value > $1.value }
                .map { String(format: "%@ %.1f", String($0.key.dropFirst(5)), $0.value) }.joined(separator: ", ")
            Benchmarks.say(String(format: "memory %@ 2 s after start: RSS %.1f MiB (anonymous %.1f, file-backed %.1f); by mapping, MiB: %@",
                                  name, m["Rss"] ?? .nan, m["Anonymous"] ?? .nan, (m["Rss"] ?? .nan) - (m["Anonymous"] ?? .nan), parts))
        }
        Benchmarks.say(String(format: "memory ratio recorderd / gpsd RSS: %.1f×", (memory.ours["Rss"] ?? .nan) / (memory.theirs["Rss"] ?? .nan)))
        var loaded: [Double] = []
        for _ in 0..<3 { loaded.append(await startRecorderd(repository: repository, measureMemory: false, storedRuns: 1000).0) }
        Benchmarks.say("start recorderd exec → READY=1 with 1,000 finished runs stored: \(span(loaded))")
    }

    /// `count` finished runs under `dataDirectory/runs/stored`, each with a manifest of 20 steps
    /// and a file result, as recorderd writes them.
    static func storeRuns(_ count: Int, dataDirectory: String) {
        let start = Date(timeIntervalSince1970: 1_795_000_000.123)
        var result = TaskResult(taskIdentifier: "stored", taskRunUUID: UUID(), startDate: start, status: .finished)
        for i in 0..<20 {
            let t = Double(i) * 30
            result.stepHistory.append(StepHistoryEntry(stepPath: "stored/step\(i)", startDate: start.addingTimeInterval(t), startUptime: 1000 + t,
                                                       endDate: start.addingTimeInterval(t + 29.5), endUptime: 1029.5 + t))
        }
        var file = FileResult(identifier: "motion", relativePath: "motion.jsonl", device: "imu0", startDate: start, startUptime: 1000,
                              units: ["accelerometer": "g", "gyro": "rad/s"])
        file.endDate = start.addingTimeInterval(600)
        file.endUptime = 1600
        file.sampleCount = 120_000
        result.asyncResults = [.file(file)]
        result.endDate = start.addingTimeInterval(600)
        let encoder = TaskResult.makeEncoder(pretty: true)
        for i in 0..<count {
            result.taskRunUUID = UUID()
            let directory = dataDirectory + "/runs/stored/" + ISO8601Timestamp.compactString(from: start.addingTimeInterval(Double(i))) + "-" + result.taskRunUUID.uuidString
            try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try! encoder.encode(result).write(to: URL(fileURLWithPath: directory + "/taskResult.json"))
        }
    }

    /// Starts recorderd with the example configuration (paths moved into a temporary directory);
    /// returns ms to READY=1 and to an accepted connection, and its memory when asked.
    static func startRecorderd(repository: String, measureMemory: Bool, storedRuns: Int = 0) async -> (Double, Double, [String: Double]) {
        let dir = Benchmarks.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        if storedRuns > 0 { storeRuns(storedRuns, dataDirectory: dir + "/data") }
        let example = try! JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: repository + "/config/recorderd.json"))) as! [String: Any]
        var configuration = example
        configuration["socket"] = dir + "/control.sock"
        configuration["dataDirectory"] = dir + "/data"
        var devices = example["devices"] as! [[String: Any]]
        devices[0]["file"] = repository + "/Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test11_Trial1.csv"
        configuration["devices"] = devices
        try! JSONSerialization.data(withJSONObject: configuration).write(to: URL(fileURLWithPath: dir + "/recorderd.json"))

        let notify = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(notify) }
        var address = unixAddress(dir + "/notify")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(notify, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }

        let t0 = SystemClock.monotonicUptime()
        let process = try! await ChildProcess(recorderd, ["--config", dir + "/recorderd.json", "--log-level", "error"],
                                              environment: ["NOTIFY_SOCKET": dir + "/notify"], output: .file("/dev/null"))
        // Both watched from the same loop: the notify socket (READY=1) and connect attempts.
        var ready: Double?, accepted: Double?
        let deadline = t0 + 15
        while ready == nil || accepted == nil, SystemClock.monotonicUptime() < deadline {
            if accepted == nil, canConnect(dir + "/control.sock") { accepted = SystemClock.monotonicUptime() - t0 }
            var pfd = pollfd(fd: notify, events: Int16(POLLIN), revents: 0)
            if ready == nil, poll(&pfd, 1, 0) > 0 {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = recv(notify, &buffer, buffer.count, 0)
                if n > 0, String(decoding: buffer[..<n], as: UTF8.self).split(separator: "\n").contains("READY=1") {
                    ready = SystemClock.monotonicUptime() - t0
                }
            }
            if ready == nil || accepted == nil { usleep(200) }
        }
        guard let ready, let accepted else { fatalError("recorderd did not become ready within 15 s") }
        let memory = measureMemory ? Self.memory(pid: process.pid) : [:]
        _ = try? await process.stop(timeout: 10)
        return (ready * 1000, accepted * 1000, memory)
    }

    /// Starts gpsd in the foreground with no device; returns ms until its control socket accepts.
    static func startGPSD(measureMemory: Bool) async -> (Double, [String: Double]) {
        let dir = Benchmarks.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let t0 = SystemClock.monotonicUptime()
        let process = try! await ChildProcess("/usr/sbin/gpsd", ["-N", "-n", "-F", dir + "/gpsd.sock", "-S", "\(47000 + Int(getpid() % 1000))"],
                                              output: .file("/dev/null"))
        while !canConnect(dir + "/gpsd.sock") {
            guard SystemClock.monotonicUptime() < t0 + 15 else { fatalError("gpsd did not start within 15 s") }
            usleep(200)
        }
        let elapsed = SystemClock.monotonicUptime() - t0
        let memory = measureMemory ? memory(pid: process.pid) : [:]
        _ = try? await process.stop(timeout: 10)
        return (elapsed * 1000, memory)
    }

    static func canConnect(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = unixAddress(path)
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } } == 0
    }

    static func unixAddress(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        return address
    }

    /// Clears the referenced bits of every page of `pid` (`/proc/PID/clear_refs`), so that
    /// `memory(pid:)`'s "touched" figures count the pages used since.
    static func clearReferences(pid: Int32) {
        let fd = open("/proc/\(pid)/clear_refs", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = write(fd, "1", 1)
        close(fd)
    }

    /// After 2 s: `smaps_rollup`'s Rss and Anonymous, Rss by mapping group ("part NAME") and the
    /// pages referenced since the last `clearReferences` (or the start) by group ("touched NAME"), MiB.
    static func memory(pid: Int32) -> [String: Double] {
        usleep(2_000_000)
        var figures: [String: Double] = [:]
        let rollup = readAll("/proc/\(pid)/smaps_rollup")
        for line in rollup.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kB = Double(fields[1]) { figures[String(fields[0].dropLast())] = kB / 1024 }
        }
        let smaps = readAll("/proc/\(pid)/smaps")
        var group = "anonymous"
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), !first.hasSuffix(":") {
                group = fields.count > 5 ? Self.group(String(fields[5])) : "anonymous"
            } else if fields.first == "Rss:", fields.count >= 2, let kB = Double(fields[1]) {
                figures["part " + group, default: 0] += kB / 1024
            } else if fields.first == "Referenced:", fields.count >= 2, let kB = Double(fields[1]) {
                figures["touched " + group, default: 0] += kB / 1024
            }
        }
        return figures
    }

    /// A /proc file read to its end (its size is 0: reading by size gets a part).
    static func readAll(_ path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func group(_ path: String) -> String {
        let name = (path as NSString).lastPathComponent
        if path == "[heap]" || path.hasPrefix("[stack") { return "anonymous" }
        if path.hasPrefix("[") { return "kernel" }
        if path.hasPrefix("/dev/shm/") || path.hasPrefix("/SYSV") || path.hasPrefix("/memfd:") { return "shared memory" }
        if name == "recorderd" || name == "gpsd" { return "executable" }
        if name.hasPrefix("libswift") { return "Swift runtime" }
        if name.hasPrefix("libFoundation") || name.hasPrefix("lib_FoundationICU") || name.hasPrefix("libicu") { return "Foundation+ICU" }
        return "other libraries"
    }
}
