import FakeIIO
import Foundation
import RecorderClient
import RecorderModel
import RecorderRuntime
import RecorderTestSupport

/// Instructions per scan of the peer, `iio_readdev` (valgrind's callgrind, which unlike times
/// repeats on this noisy VM), reading the fake device through the real libiio at 1 kHz in refills
/// of 20 scans (recorderd's 20 ms) and writing the scans; run twice, short and long, the
/// difference over the difference in scans leaves start-up out. Then recorderd the same way,
/// recording the accelerometer and gyro to JSON lines (the DaemonCount program: the daemon behind
/// a synchronous main thread, which valgrind 3.19 can run). Needs root and valgrind.
/// `BENCH_IIO_LIVE=1`: recorderd streaming the accelerometer and gyro to a live subscriber at every
/// sample instead of recording them; `BENCH_DAEMONCOUNT=PATH`: another build's DaemonCount (a
/// before/after of the daemon in one run).
extension IIOBenchmark {
    static let countRate = 1000.0

    static func instructions() async {
        guard geteuid() == 0 else { return Benchmarks.say("iio instructions: skipped (needs root for the namespace)") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/valgrind") else {
            return Benchmarks.say("iio instructions: skipped (needs valgrind)")
        }
        guard let short = await countReaddev(scans: 4000), let long = await countReaddev(scans: 12000) else { return }
        let peer = Double(long.instructions - short.instructions) / 8000
        Benchmarks.say(String(format: "iio instructions, iio_readdev at %.0f Hz, refills of %d scans of 6 × s16 + s64: %.0f per scan",
                              countRate, Int(countRate * 0.02), peer))
        guard FileManager.default.isExecutableFile(atPath: daemonCount) else {
            return Benchmarks.say("iio instructions: recorderd skipped (build DaemonCount in the same configuration first: swift build -c release)")
        }
        if ProcessInfo.processInfo.environment["BENCH_IIO_LIVE"] != nil {
            guard let shortRun = await countRecorderd(seconds: 4, live: true), let longRun = await countRecorderd(seconds: 12, live: true) else { return }
            let scans = Double(longRun.scans - shortRun.scans)
            Benchmarks.say(String(format: "iio instructions, recorderd streaming accelerometer + gyro to a live subscriber at every sample at %.0f Hz (%.0f scans apart): %.0f per scan, ratio %.1f× iio_readdev",
                                  countRate, scans, Double(longRun.instructions - shortRun.instructions) / scans,
                                  Double(longRun.instructions - shortRun.instructions) / scans / peer))
            return
        }
        guard let shortRun = await countRecorderd(seconds: 4), let longRun = await countRecorderd(seconds: 12) else { return }
        let scans = Double(longRun.scans - shortRun.scans)
        let withoutHash = Double((longRun.instructions - longRun.crypto) - (shortRun.instructions - shortRun.crypto)) / scans
        let hash = Double(longRun.crypto - shortRun.crypto) / scans
        Benchmarks.say(String(format: "iio instructions, recorderd recording accelerometer + gyro to JSON lines at %.0f Hz (%.0f scans apart): %.0f per scan without SHA-256, ratio %.1f× iio_readdev; SHA-256 %.0f more (the portable compression: valgrind's CPU has no SHA extensions)",
                              countRate, scans, withoutHash, withoutHash / peer, hash))
    }

    static var daemonCount: String {
        ProcessInfo.processInfo.environment["BENCH_DAEMONCOUNT"]
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("DaemonCount").path
    }

    struct DaemonCount {
        var instructions: Int
        /// Of which in SHA-256's compression (of the file's bytes).
        var crypto: Int
        var scans: Int
    }

    /// recorderd's daemon (the DaemonCount program: the same daemon behind a synchronous main
    /// thread) under callgrind in the fake device's namespace, recording the accelerometer and gyro
    /// at `countRate` for `seconds`, then stopped by SIGTERM; the total and SHA-256's share.
    static func countRecorderd(seconds: Double, live: Bool = false) async -> DaemonCount? {
        let tree = try! FakeIIOTree(devices: [device()])
        defer { tree.remove() }
        let g = await startGenerator(tree, unthrottled: false)
        let config = tree.root + "/recorderd.json"
        let json = #"{"socket":"\#(tree.root)/control.sock","dataDirectory":"\#(tree.root)/data","ringSeconds":2,"devices":[{"name":"imu0","kind":"iio","uri":"local:","frequency":\#(countRate)}]}"#
        try! json.write(toFile: config, atomically: true, encoding: .utf8)
        // valgrind 3.19's DWARF reader gives up on the release binary's debug information: a copy without it.
        let binary = tree.root + "/DaemonCount"
        try! FileManager.default.copyItem(atPath: daemonCount, toPath: binary)
        _ = try! await ChildProcess.run("/usr/bin/strip", ["--strip-debug", binary], timeout: 60)
        let daemon = await namespace(tree, valgrind(tree, [binary, config]))
        var connected: RecorderClient?
        for _ in 0..<1200 where connected == nil && daemon.isRunning {
            connected = try? await RecorderClient.connect(socketPath: tree.root + "/control.sock")
            if connected == nil { try? await Task.sleep(for: .milliseconds(100)) }
        }
        guard let client = connected else {
            await stop(daemon)
            _ = await stopGenerator(g)
            let log = (try? String(contentsOfFile: tree.root + "/valgrind.log", encoding: .utf8)) ?? ""
            Benchmarks.say("iio instructions: recorderd under valgrind did not start: " + log.split(separator: "\n").suffix(3).joined(separator: " / "))
            return nil
        }
        var scans = 0
        if live {
            // Every record the subscriber gets, counted as it arrives: scans are its records over two.
            let received = LockedValue(0)
            do {
                let stream = try await client.subscribe(device: "imu0", sensorTypes: [.accelerometer, .gyro])
                let reader = Task { for try await batch in stream { received.withLock { $0 += batch.filter(\.isSample).count } } }
                try? await Task.sleep(for: .seconds(seconds))
                reader.cancel()
                scans = received.withLock { $0 } / 2
            } catch {
                Benchmarks.say("iio instructions: recorderd under valgrind: \(error)")
            }
        } else { do {
            let run = try await client.startTask(identifier: "bench", asyncActions: [
                .motion("motion", options: MotionOptions(recorderTypes: [.accelerometer, .gyro], frequency: countRate)),
            ])
            try? await Task.sleep(for: .seconds(seconds))
            let result = try await run.finish()
            scans = (result.asyncResults.compactMap(\.file).first?.sampleCount ?? 0) / 2
        } catch {
            Benchmarks.say("iio instructions: recorderd under valgrind: \(error)")
        } }
        client.close()
        // SIGTERM to the namespace's init, passed on to the daemon; valgrind writes its count at the exit.
        if let pid = FakeIIOTree.initPID(unsharePID: daemon.pid) { kill(pid, SIGTERM) }
        await wait(daemon, seconds: 120)
        _ = await stopGenerator(g)
        guard scans > 0, let total = collected(tree.root + "/valgrind.log") else {
            Benchmarks.say("iio instructions: recorderd under valgrind wrote no count")
            return nil
        }
        // BENCH_KEEP_CALLGRIND=FILE: keep the (last) run's profile for callgrind_annotate.
        if let keep = ProcessInfo.processInfo.environment["BENCH_KEEP_CALLGRIND"] {
            try? FileManager.default.removeItem(atPath: keep)
            try? FileManager.default.copyItem(atPath: tree.root + "/callgrind.out", toPath: keep)
        }
        return DaemonCount(instructions: total, crypto: await sha256Share(tree.root + "/callgrind.out"), scans: scans)
    }

    /// The instructions a callgrind output file counts in SHA-256's compression (`callgrind_annotate`).
    static func sha256Share(_ file: String) async -> Int {
        guard let (_, text) = try? await ChildProcess.run("/usr/bin/callgrind_annotate", ["--inclusive=no", file], output: .capturedWithoutErrors) else { return 0 }
        return text.split(separator: "\n").filter { $0.contains("recorderd_sha256_compress") }.reduce(0) { sum, line in
            sum + (Int(line.split(separator: " ").first.map { $0.replacingOccurrences(of: ",", with: "") } ?? "") ?? 0)
        }
    }

    struct Count {
        var instructions: Int
        var scans: Int
    }

    /// "Collected : N" of a valgrind log.
    static func collected(_ log: String) -> Int? {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.contains("Collected :") }) else { return nil }
        return Int(line.split(separator: " ").last ?? "")
    }

    static func valgrind(_ tree: FakeIIOTree, _ payload: [String]) -> [String] {
        ["/usr/bin/valgrind", "--tool=callgrind", "--callgrind-out-file=\(tree.root)/callgrind.out", "--log-file=\(tree.root)/valgrind.log"]
            + payload
    }

    /// Waits for the namespace's payload to end (`seconds` at most), then stops it by its PID.
    static func wait(_ p: ChildProcess, seconds: Double) async {
        _ = try? await p.wait(timeout: seconds)
    }

    static func countReaddev(scans: Int) async -> Count? {
        let tree = try! FakeIIOTree(devices: [device()])
        defer { tree.remove() }
        try! "\(Int(countRate))\n".write(toFile: tree.directory("iio:device0") + "/sampling_frequency", atomically: false, encoding: .utf8)
        let g = await startGenerator(tree, unthrottled: false)
        let output = tree.root + "/readdev.bin"
        let p = await namespace(tree, valgrind(tree, ["/usr/bin/iio_readdev", "-b", String(Int(countRate * 0.02)), "-s", String(scans), "iio:device0"]),
                                output: output)
        await wait(p, seconds: Double(scans) / countRate + 60)
        _ = await stopGenerator(g)
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        guard let total = collected(tree.root + "/valgrind.log"), size == scans * 24 else {
            Benchmarks.say("iio instructions: iio_readdev failed (\(size) bytes)")
            return nil
        }
        return Count(instructions: total, scans: scans)
    }
}
