import Foundation
import RecorderClient
import RecorderConfiguration
import RecorderModel
import RecorderTestSupport

/// Figures of recorderd under attack and overload (`BENCH_ONLY=torture`), with the release
/// executable: memory while a client floods requests without reading replies, `daemon.status`
/// latency idle and under load (a flood, 1,100 connections, every task run and recorder the
/// limits allow), and what `kill -9` loses. With `BENCH_BASELINE_RECORDERD=PATH` the flood also
/// runs against another build (e.g. the landed main before the limits) in the same run.
enum TortureBenchmark {
    static var recorderd: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("recorderd").path
    }

    static let walk = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test5_Trial1.csv").standardized.path

    static func run() async {
        await flood(executable: recorderd, label: "recorderd")
        if let baseline = ProcessInfo.processInfo.environment["BENCH_BASELINE_RECORDERD"] {
            await flood(executable: baseline, label: "baseline \(baseline)")
        }
        await latencyAtTheLimits()
        await connections()
        await killNine(count: Int(ProcessInfo.processInfo.environment["BENCH_KILLS"] ?? "") ?? 30)
    }

    /// Starts a daemon with a replayed walk at `speed` and `extra` configuration keys.
    static func start(_ executable: String, dir: String, speed: Double = 1, extra: String = "") async -> (ChildProcess, RecorderClient)? {
        try! """
        {"socket": "\(dir)/control.sock", "dataDirectory": "\(dir)/data",\(extra)
         "devices": [{"name": "imu0", "kind": "replay", "file": "\(walk)", "frequency": 100,
                      "units": {"accelerometer": "g", "gyro": "deg/s"}, "speed": \(speed), "loop": true}]}
        """.write(toFile: dir + "/recorderd.json", atomically: true, encoding: .utf8)
        let daemon = try! await ChildProcess(executable, ["--config", dir + "/recorderd.json", "--log-level", "error"], output: .file("/dev/null"))
        guard let client = await Benchmarks.connect(dir + "/control.sock", while: daemon) else {
            _ = try? await daemon.stop(signal: SIGKILL)
            Benchmarks.say("torture: \(executable) did not start")
            return nil
        }
        return (daemon, client)
    }

    static func residentMiB(_ pid: Int32) -> Double {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let kib = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
            .flatMap { Double($0.split(separator: " ", omittingEmptySubsequences: true)[1]) } ?? 0
        return kib / 1024
    }

    /// `n` daemon.status round trips: median and 99th percentile in ms.
    static func statusLatency(_ client: RecorderClient, _ n: Int = 200) async -> (p50: Double, p99: Double) {
        var samples: [Double] = []
        for _ in 0..<n {
            let t0 = monotonic()
            _ = try? await client.status()
            samples.append((monotonic() - t0) * 1000)
        }
        samples.sort()
        return (samples[n / 2], samples[min(n - 1, n * 99 / 100)])
    }

    static func format(_ v: Double) -> String { String(format: "%.2f", v) }

    /// CLOCK_MONOTONIC seconds.
    static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// A client pushes `daemon.status` requests for 10 s without reading a reply.
    static func flood(executable: String, label: String) async {
        let dir = Benchmarks.temporaryDirectory()
        guard let (daemon, client) = await start(executable, dir: dir) else { return }
        let pid = daemon.pid
        try? await Task.sleep(for: .seconds(1))
        let idle = await statusLatency(client)
        let before = residentMiB(pid)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in (dir + "/control.sock").utf8.enumerated() { raw[i] = b } }
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        let request = Array((#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"# + "\n").utf8)
        let batch = Array([[UInt8]](repeating: request, count: 4000).joined())
        let pusher = Task.detached { () -> (Int, Double) in
            var total = 0, peak = 0.0
            let end = Date().addingTimeInterval(10)
            while Date() < end, total < 1 << 30 {
                let n = batch.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
                if n > 0 { total += n } else {
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, 20)
                }
                peak = max(peak, residentMiB(pid))
            }
            return (total, peak)
        }
        try? await Task.sleep(for: .seconds(3))
        let during = await statusLatency(client)
        let (pushed, peak) = await pusher.value
        close(fd)
        let cpu0 = AudioBenchmark.cpuSeconds(pid: pid)
        try? await Task.sleep(for: .seconds(2))
        let cpuAfter = AudioBenchmark.cpuSeconds(pid: pid) - cpu0
        let after = residentMiB(pid)
        Benchmarks.say("torture flood (\(label)): pushed \(pushed >> 20) MiB in 10 s without reading; RSS \(format(before)) MiB idle, peak \(format(peak)) MiB (\(format(peak / before))×), \(format(after)) MiB 2 s after the client left; CPU in those 2 s \(format(cpuAfter)) s")
        Benchmarks.say("torture flood (\(label)): daemon.status idle p50 \(format(idle.p50)) ms p99 \(format(idle.p99)) ms; during the flood p50 \(format(during.p50)) ms p99 \(format(during.p99)) ms")
        client.close()
        _ = try? await daemon.stop()
    }

    /// Every task run and recorder the default limits allow, recording.
    static func latencyAtTheLimits() async {
        let dir = Benchmarks.temporaryDirectory()
        guard let (daemon, client) = await start(recorderd, dir: dir) else { return }
        let idle = await statusLatency(client)
        let limits = DaemonLimits()
        var runs: [TaskRunHandle] = []
        for r in 0..<limits.taskRuns {
            let actions = (0..<limits.recordersPerRun).map { AsyncActionConfiguration.motion("m\(r)_\($0)") }
            if let run = try? await client.startTask(identifier: "t", asyncActions: actions) { runs.append(run) }
        }
        let cpu0 = AudioBenchmark.cpuSeconds(pid: daemon.pid)
        let t0 = monotonic()
        let loaded = await statusLatency(client)
        let cpu = (AudioBenchmark.cpuSeconds(pid: daemon.pid) - cpu0) / (monotonic() - t0)
        Benchmarks.say("torture limits: \(runs.count) task runs × \(limits.recordersPerRun) recorders at 100 Hz; daemon.status p50 \(format(loaded.p50)) ms p99 \(format(loaded.p99)) ms (idle p50 \(format(idle.p50)) ms, \(format(loaded.p50 / idle.p50))×); daemon CPU \(format(cpu * 100)) % of a core; RSS \(format(residentMiB(daemon.pid))) MiB")
        for run in runs { _ = try? await run.cancel() }
        client.close()
        _ = try? await daemon.stop()
    }

    /// 1,100 connections at once: served up to the limit, the rest refused.
    static func connections() async {
        let dir = Benchmarks.temporaryDirectory()
        guard let (daemon, client) = await start(recorderd, dir: dir) else { return }
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let path = dir + "/control.sock"
        let began = monotonic()
        var fds: [Int32] = []
        while fds.count < 1099 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
            let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            if rc == 0 { fds.append(fd) } else { close(fd) }
        }
        let connected = monotonic() - began
        let during = await statusLatency(client)
        for fd in fds { close(fd) }
        Benchmarks.say("torture connections: 1,100 connected in \(format(connected * 1000)) ms (64 served, the rest refused); daemon.status p50 \(format(during.p50)) ms p99 \(format(during.p99)) ms with them open")
        client.close()
        _ = try? await daemon.stop()
    }

    /// `count` times: start, record at 1 kHz, kill -9; the next start recovers. The loss is the
    /// time between the kill and the last sample in the file.
    static func killNine(count: Int) async {
        let dir = Benchmarks.temporaryDirectory()
        var losses: [Double] = []
        var runs: [(String, Double)] = []
        for _ in 0..<count {
            guard let (daemon, client) = await start(recorderd, dir: dir, speed: 10) else { return }
            guard let run = try? await client.startTask(identifier: "t", asyncActions: [.motion("m")]) else { continue }
            try? await Task.sleep(for: .milliseconds(Int.random(in: 300...800)))
            let at = monotonic()
            _ = try? await daemon.stop(signal: SIGKILL)
            client.close()
            runs.append((run.runDirectory, at))
        }
        if let (daemon, client) = await start(recorderd, dir: dir, speed: 10) {
            client.close()
            _ = try? await daemon.stop()
        }
        for (directory, at) in runs {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: directory + "/m.jsonl"))) ?? Data()
            let last = data.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONDecoder().decode(Record.self, from: $0) }
                .filter(\.isSample).compactMap(\.uptime).max() ?? 0
            losses.append(at - last)
        }
        losses.sort()
        guard !losses.isEmpty else { return }
        Benchmarks.say("torture kill -9: \(losses.count) recordings at 1 kHz killed; lost before the kill p50 \(format(losses[losses.count / 2] * 1000)) ms, max \(format(losses.last! * 1000)) ms (recorders drain every 100 ms; the durability bound is 1 s)")
    }
}
