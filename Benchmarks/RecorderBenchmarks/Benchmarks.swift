import Foundation
import Logging
import RecorderClient
import RecorderConfiguration
import RecorderDaemon
import RecorderEngine
import RecorderJSON
import RecorderModel
import RecorderTestSupport
import RecorderProtocol
import RecorderRuntime
import ReplaySensors

/// recorderd's benchmarks (run with `swift run -c release RecorderBenchmarks`): numbers for BENCHMARKS.md.
enum Benchmarks {
    /// Prints at once (stdout to a pipe is block-buffered).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Voluntary context switches of the whole process so far (every thread's): each is a thread
    /// going to sleep to be woken again, the hand-offs a request's path pays for.
    static func voluntarySwitches() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_nvcsw
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// CPU seconds of the calling thread (a measure of one piece of work while other threads run).
    static func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// User + system CPU seconds of the waited-for children so far.
    static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// With `BENCH_PERF=FILE`, profiles process `pid` with `perf record -g` into FILE until the
    /// returned closure is called (for finding where a benchmark's CPU goes; off by default).
    /// Spawned with an empty signal mask: this thread blocks SIGINT, which perf needs to stop.
    static func profile(pid: Int32) -> () -> Void {
        guard let output = ProcessInfo.processInfo.environment["BENCH_PERF"] else { return {} }
        let arguments = ["perf", "record", "-q", "-F", "20000", "-g", "-p", "\(pid)", "-o", output]
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        guard posix_spawn(&child, "/usr/bin/perf", nil, &attributes, &argv, environ) == 0 else { return {} }
        usleep(300_000) // perf attaches asynchronously; this only shortens the profile's start
        return {
            kill(child, SIGINT)
            var status: Int32 = 0
            waitpid(child, &status, 0)
        }
    }

    /// A client of the recorderd `process` started, once its socket accepts (tried every 10 ms for
    /// 15 s while the process runs); nil if it never does.
    static func connect(_ socket: String, while process: ChildProcess) async -> RecorderClient? {
        for _ in 0..<1500 where process.isRunning {
            if let client = try? await RecorderClient.connect(socketPath: socket) { return client }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    static func temporaryDirectory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("recorderd-bench-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func main() async {
        let log = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Tests/Fixtures/gps/ublox-neo-m9n-nmea.log").standardized.path
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Tests/Fixtures/imu/mobgap/HA/001/TimeMeasure1_Test11_Trial1.csv").standardized.path
        say("machine: \(ProcessInfo.processInfo.processorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB")
        let only = ProcessInfo.processInfo.environment["BENCH_ONLY"]
        if only == nil || only == "encode" { await hashing(); encodeAndWrite() }
        if only == nil || only == "e2e" {
            for speed in [10_000.0, 2_000.0, 1_000.0] { await endToEnd(file: root, speed: speed) }
        }
        if only == nil || only == "step" { await stepRoundTrip(file: root) }
        if only == nil || only == "gps" {
            await GPSBenchmark.run(log: log)
        }
        if only == nil || only == "iio" { await IIOBenchmark.run() }
        if only == nil || only == "device" { await DeviceLoadBenchmark.run(gpsLog: log) }
        if only == "device-memory" { await DeviceLoadBenchmark.run(gpsLog: log, load: .memory) }
        if only == "iio-instructions" { await IIOBenchmark.instructions() }
        if only == "iio-live" { await IIOBenchmark.liveThroughput() }
        if only == nil || only == "parse" { ParseBenchmark.run() }
        if only == nil || only == "protocol" { ProtocolEncodeBenchmark.run() }
        if only == nil || only == "fusion" { await FusionBenchmark.run(walk: root) }
        if only == nil || only == "gait" {
            GaitBenchmark.run(fixtures: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Tests/Fixtures/imu/mobgap").standardized.path)
        }
        if only == "gait-frontier" {
            GaitBenchmark.frontier(fixtures: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Tests/Fixtures/imu/mobgap").standardized.path)
        }
        if only == nil || only == "torture" { await TortureBenchmark.run() }
        if only == nil || only == "footprint" {
            await FootprintBenchmark.run(repository: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path)
        }
        if only == nil || only == "audio" {
            let wav = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Tests/Fixtures/audio/Front_Center.wav").standardized.path
            await AudioBenchmark.run(fixture: wav)
        }
    }

    /// SHA-256 throughput (every byte written is hashed), with `sha256sum` as the peer.
    static func hashing() async {
        let bytes = [UInt8](repeating: 0x5A, count: 64 << 20)
        func ours(_ implementation: SHA256.Implementation) -> Double {
            let cpu0 = cpuSeconds()
            var s = SHA256(implementation: implementation)
            for chunk in stride(from: 0, to: bytes.count, by: 65536) { s.update(bytes[chunk..<chunk + 65536]) }
            _ = s.hexDigest()
            return Double(bytes.count) / (cpuSeconds() - cpu0) / 1e6
        }
        let fastest = ours(.fastest), portable = ours(.portable)
        // Peers in the same run, on the same bytes (their CPU time): coreutils sha256sum (portable
        // C) and OpenSSL's libcrypto (`openssl dgst`, the SHA extensions where the CPU has them).
        let path = temporaryDirectory() + "/hash.bin"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        func peer(_ executable: String, _ arguments: [String]) async -> Double {
            let before = childrenCPUSeconds()
            _ = try! await ChildProcess.run(executable, arguments + [path], output: .file("/dev/null"))
            return Double(bytes.count) / (childrenCPUSeconds() - before) / 1e6
        }
        let sha256sum = await peer("/usr/bin/sha256sum", []), openssl = await peer("/usr/bin/openssl", ["dgst", "-sha256"])
        say(String(format: "sha256: %.0f MB/s per core (CPU extensions: %@), portable %.0f; peers sha256sum %.0f, openssl dgst %.0f; ratios %.2fx sha256sum, %.2fx openssl",
                     fastest, SHA256().usesCPUExtensions ? "yes" : "no", portable, sha256sum, openssl, fastest / sha256sum, fastest / openssl))
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Motion records encoded and written (with SHA-256) per second on one core, and the same
    /// records through Foundation's JSONEncoder (the peer) for a ratio.
    static func encodeAndWrite() {
        let records = Int(ProcessInfo.processInfo.environment["BENCH_RECORDS"] ?? "2000000")!
        let directory = temporaryDirectory()
        let writer = try! RecordFileWriter(path: directory + "/bench.jsonl")
        var encoder = JSONLinesEncoder()
        let step = JSONString("gait-balance/walking.outbound")
        let start = Date()
        let cpu0 = cpuSeconds()
        encodeMotion(records: records, encoder: &encoder, stepPath: step) { try! writer.write($0) }
        try! writer.close()
        let wall = Date().timeIntervalSince(start)
        let cpu = cpuSeconds() - cpu0
        let bytes = writer.bytesWritten
        say(String(format: "encode+write+sha256: %d records in %.3f s wall, %.3f s CPU: %.0f records/s per core, %.1f MB/s",
                     records, wall, cpu, Double(records) / cpu, Double(bytes) / cpu / 1e6))

        // The same without the hash: encoding and write(2) only.
        let fd = open(directory + "/nohash.jsonl", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let ncpu0 = cpuSeconds()
        encodeMotion(records: records, encoder: &encoder, stepPath: step) { bytes in
            _ = bytes.withUnsafeBytes { POSIXFile.writeAll(fd, $0) }
        }
        close(fd)
        let ncpu = cpuSeconds() - ncpu0
        say(String(format: "encode+write (no hash): %.0f records/s per core", Double(records) / ncpu))

        // Peer: Foundation's JSONEncoder on the same records (fewer of them; it is slow).
        struct Sample: Encodable { let uptime: Double; let timestamp: Double; let stepPath: String; let sensorType: String; let x: Double; let y: Double; let z: Double }
        let peerRecords = 200_000
        let json = JSONEncoder()
        var total = 0
        let pcpu0 = cpuSeconds()
        var uptime = 12_345.678_901
        for i in 0..<peerRecords {
            uptime += 0.01
            let s = Sample(uptime: uptime, timestamp: uptime - 12_345.678_901, stepPath: "gait-balance/walking.outbound",
                           sensorType: i & 1 == 0 ? "accelerometer" : "gyro", x: 0.98 + Double(i % 97) * 1e-4, y: -0.05085322578046536, z: -0.013817648565004352)
            total += try! json.encode(s).count + 1
        }
        let pcpu = cpuSeconds() - pcpu0
        say(String(format: "peer JSONEncoder (encode only): %.0f records/s per core; hand-written encoder+write+hash is %.1fx faster",
                     Double(peerRecords) / pcpu, (Double(records) / cpu) / (Double(peerRecords) / pcpu)))
        _ = total
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Encodes `records` motion records, handing each full 64 KiB buffer (and the rest) to `write`.
    static func encodeMotion(records: Int, encoder: inout JSONLinesEncoder, stepPath: JSONString, write: ([UInt8]) -> Void) {
        encoder.removeAll()
        var uptime = 12_345.678_901
        for i in 0..<records {
            uptime += 0.01
            let v = Vector3(x: 0.98 + Double(i % 97) * 1e-4, y: -0.05085322578046536 + Double(i % 13) * 1e-5, z: -0.013817648565004352)
            encoder.appendMotion(uptime: uptime, timestamp: uptime - 12_345.678_901, stepPath: stepPath,
                                 sensorType: i & 1 == 0 ? .accelerometer : .gyro, vector: v)
            if encoder.bytes.count >= 64 * 1024 {
                write(encoder.bytes)
                encoder.removeAll()
            }
        }
        write(encoder.bytes)
        encoder.removeAll()
    }

    static func daemonConfiguration(file: String, speed: Double, ringSeconds: Double) -> (DaemonConfiguration, String) {
        var configuration = try! TestConfiguration(directory: temporaryDirectory(), devices: [Fixtures.replayDevice(file: file, speed: speed)])
        configuration.daemon.ringSeconds = ringSeconds
        return (configuration.daemon, configuration.directory)
    }

    /// Replay → ring → file at an unthrottled replay speed: samples written per second, CPU per
    /// million samples, and whether any were lost.
    static func endToEnd(file: String, speed: Double) async {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        // speed 10_000: a 1 MHz "device"; the ring holds 0.5 s.
        let (configuration, directory) = daemonConfiguration(file: file, speed: speed, ringSeconds: 0.5)
        let devices = DeviceRegistry(configuration: configuration, backends: [ReplayBackend()], baseDirectory: "/", logger: logger)
        devices.probeAll()
        let runs = TaskRunRegistry(dataDirectory: configuration.dataDirectory, devices: devices, ringSeconds: 0.5, logger: logger)
        let cpu0 = cpuSeconds()
        let start = Date()
        let run = try! await runs.start(taskIdentifier: "bench", asyncActions: [.motion("m")])
        try? await Task.sleep(for: .seconds(5))
        let result = try! await runs.finish(run.taskRunUUID)
        let wall = Date().timeIntervalSince(start)
        let cpu = cpuSeconds() - cpu0
        let file = result.asyncResults.first!.file!
        let samples = file.sampleCount / 2
        say(String(format: "end-to-end replay→ring→file at %.0f Hz: %d samples (x2 records) in %.2f s: %.0f samples/s, %.0f records/s, %.2f CPU s per million samples (both cores), %d samples dropped in %d gaps",
                     speed * 100, samples, wall, Double(samples) / wall, Double(file.sampleCount) / wall, cpu / (Double(samples) / 1e6), file.droppedSamples / 2, file.gapCount))
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `step.start` / `step.finish` round trips through the socket while a 100 Hz motion
    /// recording is written: p50 and p99, for calls resumed on the cooperative pool (the default)
    /// and on the client's reader thread (`withReaderExecutor`), in alternate task runs.
    static func stepRoundTrip(file: String) async {
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let (configuration, directory) = daemonConfiguration(file: file, speed: 1, ringSeconds: 30)
        let daemon = RecorderDaemon(configuration: configuration, components: .recorderd, baseDirectory: "/", logger: logger)
        try! await daemon.prepare()
        let client = try! await RecorderClient.connect(socketPath: configuration.socket)
        let environment = ProcessInfo.processInfo.environment
        let runs = environment["BENCH_ONE_RUN"] == nil ? 200 : 2
        let steps = environment["BENCH_ONE_RUN"] == nil ? 20 : 2000
        let actions: [AsyncActionConfiguration] = environment["BENCH_NO_RECORDER"] == nil ? [.motion("m")] : []
        /// Per variant: latencies, voluntary switches, CPU seconds of the boundaries.
        struct Figures { var latencies: [Double] = []; var switches = 0; var cpu = 0.0 }
        // One task run of `steps` steps, each with a motion recording.
        func oneRun(_ figures: inout Figures) async {
            let clock = ContinuousClock()
            let run = try! await client.startTask(identifier: "bench", asyncActions: actions)
            for i in 0..<steps {
                let path = "bench/step\(i)"
                let switches0 = voluntarySwitches()
                let cpu0 = cpuSeconds()
                let t0 = clock.now
                _ = try! await run.startStep(path)
                let elapsed = clock.now - t0
                figures.switches += voluntarySwitches() - switches0
                figures.latencies.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
                _ = try! await run.finishStep(path)
                figures.cpu += cpuSeconds() - cpu0
            }
            _ = try! await run.finish()
        }
        // Real tasks have 5 to 20 steps; the two variants alternate run by run.
        var pool = Figures(), reader = Figures()
        for index in 0..<runs {
            if index % 2 == 0 {
                await oneRun(&pool)
            } else {
                await client.withReaderExecutor { await oneRun(&reader) }
            }
        }
        for (name, var figures) in [("resumed on the cooperative pool", pool), ("resumed on the client's reader thread (withReaderExecutor)", reader)] {
            figures.latencies.sort()
            let latencies = figures.latencies
            let p50 = latencies[latencies.count / 2]
            let p99 = latencies[latencies.count * 99 / 100]
            say(String(format: "step.start round trip, %@ (%d calls in %d runs of %d steps, recording at 100 Hz): p50 %.0f µs, p99 %.0f µs, max %.0f µs, %.2f voluntary context switches per call (all threads, client's included), %.0f µs of CPU per boundary (a start and a finish, all threads)",
                         name, latencies.count, runs / 2, steps, p50, p99, latencies.last!, Double(figures.switches) / Double(latencies.count), figures.cpu * 1e6 / Double(2 * latencies.count)))
        }
        client.close()
        await daemon.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
