import FakeIIO
import Foundation
import RecorderClient
import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderTestSupport

/// recorderd's IIO backend on the fake device (real libiio, local backend, in a private
/// namespace) side by side with libiio's own `iio_readdev` on the same device in the same run:
/// CPU seconds per million scans at 10 kHz and unthrottled, loss, and the latency from a
/// sample's `in_timestamp` to its arrival at a `stream.subscribe` client at 100 Hz.
/// Needs root (the namespace).
enum IIOBenchmark {
    static let seconds = 10.0

    static var generator: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("FakeIIOGenerator").path
    }

    /// The recorderd measured: the one beside the benchmark, or `BENCH_RECORDERD` (another
    /// build's, for a before/after of the daemon in one run).
    static var recorderd: String {
        ProcessInfo.processInfo.environment["BENCH_RECORDERD"]
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("recorderd").path
    }

    static func run() async {
        guard geteuid() == 0 else { return Benchmarks.say("iio: skipped (needs root for the namespace)") }
        guard FileManager.default.isExecutableFile(atPath: generator), FileManager.default.isExecutableFile(atPath: recorderd) else {
            return Benchmarks.say("iio: skipped (build FakeIIOGenerator and recorderd in the same configuration first: swift build -c release)")
        }
        Benchmarks.say("iio: \(seconds) s per measurement, scans of 6 × s16 + s64 (24 bytes)")
        // BENCH_IIO_RECORDING_ONLY: only the recording rows against iio_readdev (for A/B runs of the writer).
        let recordingOnly = ProcessInfo.processInfo.environment["BENCH_IIO_RECORDING_ONLY"] != nil
        if !recordingOnly {
            await acquisitionRows()
            if ProcessInfo.processInfo.environment["BENCH_FUSION_ONLY"] != nil { return }
        }
        for unthrottled in [false, true] {
            let label = unthrottled ? "unthrottled" : "10 kHz"
            let ours = await recorderdCPU(unthrottled: unthrottled)
            let peer = await readdevCPU(unthrottled: unthrottled)
            Benchmarks.say(String(format: "iio %@: recorderd %.0f scans/s, %.3f CPU s per million scans (sampling thread %.3f, writer and the rest %.3f), lost %d (gap records), generator overruns %d",
                                  label, ours.rate, ours.cpuPerMillion, ours.samplingPerMillion, ours.cpuPerMillion - ours.samplingPerMillion,
                                  ours.lost, ours.overruns))
            Benchmarks.say(String(format: "iio %@: iio_readdev %.0f scans/s, %.3f CPU s per million scans, generator overruns %d",
                                  label, peer.rate, peer.cpuPerMillion, peer.overruns))
            Benchmarks.say(String(format: "iio %@: ratio recorderd / iio_readdev CPU per scan %.2f×", label, ours.cpuPerMillion / peer.cpuPerMillion))
            if !ours.fileFloorPerMillion.isNaN {
                // Any JSON-lines recorder of these bytes pays the peer's acquisition and this.
                Benchmarks.say(String(format: "iio %@: the recording's own file hashed and written alone (RecordFileWriter: SHA-256, write(2) per 0.25 s, fdatasync per second) %.3f CPU s per million scans; with iio_readdev's acquisition a floor of %.2f× iio_readdev",
                                      label, ours.fileFloorPerMillion, (peer.cpuPerMillion + ours.fileFloorPerMillion) / peer.cpuPerMillion))
            }
        }
        if recordingOnly { return }
        // The device written every ~1 ms (no watermark): both readers wake ~10× per refill.
        let eagerOurs = await recorderdCPU(unthrottled: false, eager: true)
        let eagerPeer = await readdevCPU(unthrottled: false, eager: true)
        Benchmarks.say(String(format: "iio 10 kHz, device written every 1 ms: recorderd %.3f, iio_readdev %.3f CPU s per million scans, ratio %.2f×, lost %d",
                              eagerOurs.cpuPerMillion, eagerPeer.cpuPerMillion, eagerOurs.cpuPerMillion / eagerPeer.cpuPerMillion, eagerOurs.lost))
        await latency()
    }

    /// The device sampling without a file (the backend alone, then with fusion), and a recording
    /// of the fused types.
    static func acquisitionRows() async {
        // The backend alone: the device sampling into its ring (a 1 Hz live subscriber holds it), no file.
        let acquisition = await recorderdCPU(unthrottled: false, recording: false)
        let peer10k = await readdevCPU(unthrottled: false)
        Benchmarks.say(String(format: "iio 10 kHz acquisition only: recorderd %.3f CPU s per million scans (sampling thread %.3f), iio_readdev %.3f, ratio %.2f×, generator overruns %d / %d",
                              acquisition.cpuPerMillion, acquisition.samplingPerMillion, peer10k.cpuPerMillion, acquisition.cpuPerMillion / peer10k.cpuPerMillion,
                              acquisition.overruns, peer10k.overruns))
        // The same with the device's fusion running on every scan (the subscriber asks for a fused type).
        let fusedAcquisition = await recorderdCPU(unthrottled: false, recording: false, fused: true)
        Benchmarks.say(String(format: "iio 10 kHz acquisition with fusion: recorderd %.3f CPU s per million scans (without: %.3f; fusion adds %.3f µs/scan), generator overruns %d",
                              fusedAcquisition.cpuPerMillion, acquisition.cpuPerMillion, fusedAcquisition.cpuPerMillion - acquisition.cpuPerMillion,
                              fusedAcquisition.overruns))
        let fusedRecording = await recorderdCPU(unthrottled: false, fused: true)
        Benchmarks.say(String(format: "iio 10 kHz recording accelerometer, gyro and the four fused types: %.0f scans/s, %.3f CPU s per million scans, lost %d (gap records), generator overruns %d",
                              fusedRecording.rate, fusedRecording.cpuPerMillion, fusedRecording.lost, fusedRecording.overruns))
    }

    struct Figures {
        var rate = 0.0
        var cpuPerMillion = 0.0
        var lost = 0
        var overruns = 0
        /// recorderd's IIO sampling thread alone (refill, decode, hand-off to the ring).
        var samplingPerMillion = Double.nan
        /// Hashing and writing the recording's own file alone (`fileFloorCPU`).
        var fileFloorPerMillion = Double.nan
    }

    static func device() -> FakeIIODevice {
        FakeIIODevice(availableFrequencies: [100, 1000, 10000], timestampClock: "monotonic")
    }

    /// Starts `payload` in the namespace of `tree`; returns the unshare process.
    /// `output`: a file for the payload's output (default `/dev/null`); its errors go to `/dev/null`.
    static func namespace(_ tree: FakeIIOTree, _ payload: [String], output: String = "/dev/null") async -> ChildProcess {
        let command = tree.namespaceCommand(payload, generator: generator)
        return try! await ChildProcess(command[0], Array(command.dropFirst()), output: .file(output, withErrors: false))
    }

    /// The fake device's generator; its output (the overrun counts) is read at its end.
    static func startGenerator(_ tree: FakeIIOTree, unthrottled: Bool, eager: Bool = false) async -> ChildProcess {
        try! await ChildProcess(generator, ["--device-dir", tree.directory("iio:device0"), "--fifo", tree.fifo("iio:device0")]
                                    + (unthrottled ? ["--unthrottled"] : []) + (eager ? ["--eager"] : []),
                                output: .capturedWithoutErrors)
    }

    /// Starts recorderd in the tree's namespace with one `iio` device at `frequency`; returns the
    /// namespace's process and a connected client.
    static func startRecorderd(_ tree: FakeIIOTree, frequency: Double, ringSeconds: Double) async -> (ChildProcess, RecorderClient) {
        let config = tree.root + "/recorderd.json"
        let json = #"{"socket":"\#(tree.root)/control.sock","dataDirectory":"\#(tree.root)/data","ringSeconds":\#(ringSeconds),"devices":[{"name":"imu0","kind":"iio","uri":"local:","frequency":\#(frequency)}]}"#
        try! json.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = await namespace(tree, [recorderd, "--config", config, "--log-level", "error"])
        guard let client = await Benchmarks.connect(tree.root + "/control.sock", while: daemon) else { fatalError("recorderd did not start") }
        return (daemon, client)
    }

    /// Kills by PID and returns the generator's overrun count (scans the reader could not take).
    static func stopGenerator(_ g: ChildProcess) async -> Int {
        _ = try? await g.stop(signal: SIGKILL)
        let text = g.printed
        return text.split(separator: "\n").filter { $0.hasPrefix("disable") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("overrun=") }.flatMap { Int($0.dropFirst(8)) }
        }.reduce(0, +)
    }

    /// Stops the namespace: SIGTERM to its init (passed on to the payload), then waits.
    static func stop(_ p: ChildProcess) async {
        if let pid = FakeIIOTree.initPID(unsharePID: p.pid) { kill(pid, SIGTERM) }
        _ = try? await p.wait(timeout: 15)
    }

    /// The host PID of the namespace's payload process (the script's child).
    static func payloadPID(_ p: ChildProcess) -> Int32? {
        FakeIIOTree.initPID(unsharePID: p.pid).flatMap { FakeIIOTree.initPID(unsharePID: $0) }
    }

    /// CPU seconds of the namespace's payload process: the sum over its threads of
    /// `/proc/PID/task/TID/schedstat` (ns of CPU; `/proc/PID/stat` counts 10 ms ticks, too coarse
    /// for iio_readdev's few milliseconds).
    static func payloadCPU(_ p: ChildProcess) -> Double { payloadThreadsCPU(p).total }

    /// CPU seconds of the payload's threads: all of them, and recorderd's IIO sampling threads
    /// (named `iio.DEVICE`, see `ThreadName`) alone.
    static func payloadThreadsCPU(_ p: ChildProcess) -> (total: Double, sampling: Double) {
        guard let child = payloadPID(p),
              let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child)/task") else { return (.nan, .nan) }
        return tasks.reduce((0.0, 0.0)) { sum, tid in
            let text = (try? String(contentsOfFile: "/proc/\(child)/task/\(tid)/schedstat", encoding: .utf8)) ?? ""
            let seconds = (Double(text.split(separator: " ").first ?? "") ?? 0) * 1e-9
            let name = (try? String(contentsOfFile: "/proc/\(child)/task/\(tid)/comm", encoding: .utf8)) ?? ""
            return (sum.0 + seconds, sum.1 + (name.hasPrefix("iio.") ? seconds : 0))
        }
    }

    /// recorderd's CPU per scan while it records to a file (`recording`) or only samples into the
    /// ring for a 1 Hz live subscriber (10 kHz only: the scan rate is then the device's).
    /// `fused`: the live subscriber (acquisition only) or the recording asks for fused device
    /// motion, so the device's fusion runs on every scan.
    static func recorderdCPU(unthrottled: Bool, recording: Bool = true, eager: Bool = false, fused: Bool = false) async -> Figures {
        let tree = try! FakeIIOTree(devices: [device()])
        defer { tree.remove() }
        let g = await startGenerator(tree, unthrottled: unthrottled, eager: eager)
        let (daemon, client) = await startRecorderd(tree, frequency: 10000, ringSeconds: 2)
        if !recording {
            let stream = try! await client.subscribe(device: "imu0", sensorTypes: [fused ? .rotationRate : .accelerometer], rate: 1)
            let reader = Task { for try await _ in stream {} }
            try? await Task.sleep(for: .seconds(1))
            let cpu0 = payloadThreadsCPU(daemon)
            let t0 = Date()
            try? await Task.sleep(for: .seconds(seconds))
            let cpu1 = payloadThreadsCPU(daemon)
            let elapsed = Date().timeIntervalSince(t0)
            reader.cancel()
            client.close()
            await stop(daemon)
            return Figures(rate: 10000, cpuPerMillion: (cpu1.total - cpu0.total) / (10000 * elapsed) * 1e6, overruns: await stopGenerator(g),
                           samplingPerMillion: (cpu1.sampling - cpu0.sampling) / (10000 * elapsed) * 1e6)
        }
        let types: [SensorType] = fused ? [.accelerometer, .gyro] + SensorType.deviceMotionTypes.filter { $0 != .magneticField } : [.accelerometer, .gyro]
        let run = try! await client.startTask(identifier: "bench", asyncActions: [
            .motion("motion", options: MotionOptions(recorderTypes: types, frequency: 10000)),
        ])
        try? await Task.sleep(for: .seconds(1))  // steady state before the window
        let cpu0 = payloadThreadsCPU(daemon)
        let t0 = Date()
        try? await Task.sleep(for: .seconds(seconds))
        let cpu1 = payloadThreadsCPU(daemon)
        let cpu = cpu1.total - cpu0.total
        let elapsed = Date().timeIntervalSince(t0)
        let result = try! await run.finish()
        let file = result.asyncResults.compactMap(\.file).first!
        let total = Double(file.sampleCount) / Double(types.count)
        let duration = (file.endUptime ?? 0) - file.startUptime
        var floor = Double.nan
        if !unthrottled, !eager, !fused,
           let f = fileFloorCPU(of: run.runDirectory + "/" + file.relativePath, scansPerLine: 1 / Double(types.count), rate: 10000) {
            floor = f.cpu / f.scans * 1e6
        }
        client.close()
        await stop(daemon)
        let overruns = await stopGenerator(g)
        // Scans in the window, from the whole recording's rate.
        let rate = total / duration
        return Figures(rate: rate, cpuPerMillion: cpu / (rate * elapsed) * 1e6, lost: file.droppedSamples / types.count, overruns: overruns,
                       samplingPerMillion: (cpu1.sampling - cpu0.sampling) / (rate * elapsed) * 1e6, fileFloorPerMillion: floor)
    }

    static func readdevCPU(unthrottled: Bool, eager: Bool = false) async -> Figures {
        let tree = try! FakeIIOTree(devices: [device()])
        defer { tree.remove() }
        try! "10000\n".write(toFile: tree.directory("iio:device0") + "/sampling_frequency", atomically: false, encoding: .utf8)
        let g = await startGenerator(tree, unthrottled: unthrottled, eager: eager)
        let output = tree.root + "/readdev.bin"
        // The same 20 ms buffer recorderd uses at 10 kHz.
        let peer = await namespace(tree, ["/usr/bin/iio_readdev", "-b", "200", "iio:device0"], output: output)
        try? await Task.sleep(for: .seconds(1))
        let cpu0 = payloadCPU(peer)
        let size0 = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        let t0 = Date()
        try? await Task.sleep(for: .seconds(seconds))
        let cpu = payloadCPU(peer) - cpu0
        let size1 = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        let elapsed = Date().timeIntervalSince(t0)
        await stop(peer)
        let overruns = await stopGenerator(g)
        let rate = Double(size1 - size0) / 24 / elapsed
        return Figures(rate: rate, cpuPerMillion: cpu / (rate * elapsed) * 1e6, overruns: overruns)
    }

    /// A live stream's throughput (`BENCH_ONLY=iio-live`): the device at 10 kHz, a subscriber of
    /// its accelerometer and gyro at every sample (20,000 records/s, no recording): records
    /// delivered per second, recorderd's CPU per million records (every thread: the sampler, the
    /// stream's drains and notifications on the event loop), records lost (gap records).
    static func liveThroughput() async {
        guard geteuid() == 0 else { return Benchmarks.say("iio-live: skipped (needs root for the namespace)") }
        let tree = try! FakeIIOTree(devices: [device()])
        defer { tree.remove() }
        let g = await startGenerator(tree, unthrottled: false)
        let (daemon, client) = await startRecorderd(tree, frequency: 10000, ringSeconds: 2)
        let stream = try! await client.subscribe(device: "imu0", sensorTypes: [.accelerometer, .gyro])
        let counts = LockedValue((records: 0, lost: 0))
        let reader = Task {
            for try await batch in stream {
                var records = 0, lost = 0
                for r in batch {
                    if r.isSample { records += 1 } else if r.isGap { lost += r.droppedSamples ?? 0 }
                }
                counts.withLock { $0.records += records; $0.lost += lost }
            }
        }
        try? await Task.sleep(for: .seconds(1))
        let cpu0 = payloadThreadsCPU(daemon)
        let c0 = counts.withLock { $0 }
        let t0 = Date()
        try? await Task.sleep(for: .seconds(seconds))
        let cpu1 = payloadThreadsCPU(daemon)
        let c1 = counts.withLock { $0 }
        let elapsed = Date().timeIntervalSince(t0)
        reader.cancel()
        client.close()
        await stop(daemon)
        let overruns = await stopGenerator(g)
        let records = Double(c1.records - c0.records)
        Benchmarks.say(String(format: "iio-live 10 kHz, accelerometer and gyro at every sample: %.0f records/s delivered, recorderd %.3f CPU s per million records (sampling thread %.3f), lost %d, generator overruns %d",
                              records / elapsed, (cpu1.total - cpu0.total) / records * 1e6, (cpu1.sampling - cpu0.sampling) / records * 1e6,
                              c1.lost - c0.lost, overruns))
    }

    /// `in_timestamp` → arrival at a live subscriber, at 100 Hz (the device clock is monotonic).
    static func latency() async {
        let tree = try! FakeIIOTree(devices: [device()])
        defer { tree.remove() }
        let g = await startGenerator(tree, unthrottled: false)
        let (daemon, client) = await startRecorderd(tree, frequency: 100, ringSeconds: 30)
        var latencies: [Double] = []
        let stream = try! await client.subscribe(device: "imu0", sensorTypes: [.accelerometer])
        let deadline = SystemClock.monotonicUptime() + seconds + 1
        do {
            for try await batch in stream {
                let now = SystemClock.monotonicUptime()
                for r in batch where r.isSample { latencies.append(now - r.uptime!) }
                if now > deadline { break }
            }
        } catch {}
        client.close()
        await stop(daemon)
        _ = await stopGenerator(g)
        let steady = latencies.dropFirst(100).sorted()
        func p(_ q: Double) -> Double { steady[min(steady.count - 1, Int(Double(steady.count) * q))] * 1000 }
        Benchmarks.say(String(format: "iio 100 Hz tail latency (in_timestamp → subscriber), %d samples: p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                              steady.count, p(0.5), p(0.99), steady.last! * 1000))
    }
}
