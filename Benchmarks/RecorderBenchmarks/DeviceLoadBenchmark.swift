import FakeIIO
import Foundation
import RecorderClient
import RecorderModel

/// The whole device under load, in one run (issue 17): an IMU at 1,666 Hz through the real libiio
/// (the fake device) recorded with fused device motion, a microphone at 48 kHz through the real
/// libasound and JACK (dummy driver) recorded to a WAV with 0.1 s levels, a GPS at ~10 fixes/s
/// from gpsfake through the real gpsd, 30 s rings, and two live subscribers (fused attitude at
/// 50 Hz, the fixes). Everything but the fake device's generator runs in the fake device's
/// namespace (its own network and /dev: gpsd, JACK's shared memory and recorderd see one another).
/// Reports recorderd's CPU (all threads, schedstat) as a share of one core, its memory, and the
/// loss of every recorder and of the device. Needs root.
///
/// `BENCH_ONLY=device-memory` is the issue's memory configuration instead: an IIO, a gpsd and an
/// ALSA recorder with 30 s rings and one live subscriber — the IMU at 104 Hz (a gait IMU's rate)
/// recording its accelerometer and gyro as they are, the same microphone and GPS, and a live
/// accelerometer subscriber at 50 Hz.
enum DeviceLoadBenchmark {
    /// Seconds measured (`BENCH_LOAD_SECONDS`, default 30).
    static let seconds = ProcessInfo.processInfo.environment["BENCH_LOAD_SECONDS"].flatMap { Double($0) } ?? 30

    /// What runs: the whole device (`device`) or the memory configuration (`device-memory`).
    struct Load {
        var imuRate: Double
        /// Fused device motion recorded and subscribed to (attitude), and the fixes subscribed to.
        var fused: Bool
        static let whole = Load(imuRate: 1666, fused: true)
        static let memory = Load(imuRate: 104, fused: false)
    }
    static let server = "recorderd-load"

    static func run(gpsLog: String, load: Load = .whole) async {
        guard geteuid() == 0 else { return Benchmarks.say("device: skipped (needs root for the fake IIO namespace)") }
        let tools = [IIOBenchmark.generator, IIOBenchmark.recorderd, "/usr/bin/jackd", "/usr/bin/jack_wait", "/usr/bin/gpsfake", "/usr/sbin/gpsd"]
        if let missing = tools.first(where: { !FileManager.default.isExecutableFile(atPath: $0) }) {
            return Benchmarks.say("device: skipped (\(missing) missing: swift build -c release, jackd2, gpsd-clients)")
        }
        let tree = try! FakeIIOTree(devices: [FakeIIODevice(availableFrequencies: [104, 208, 416, 833, 1666], timestampClock: "monotonic")])
        defer { tree.remove() }
        writeFiles(tree, gpsLog: gpsLog, imuRate: load.imuRate)
        let generator = await IIOBenchmark.startGenerator(tree, unthrottled: false)
        let daemon = await IIOBenchmark.namespace(tree, ["/bin/bash", tree.root + "/load.sh"])
        var connected: RecorderClient?
        for _ in 0..<2000 where connected == nil {
            connected = try? await RecorderClient.connect(socketPath: tree.root + "/control.sock")
            if connected == nil { try? await Task.sleep(for: .milliseconds(10)) }
        }
        guard let client = connected else {
            await IIOBenchmark.stop(daemon)
            _ = await IIOBenchmark.stopGenerator(generator)
            let log = (try? String(contentsOfFile: tree.root + "/load.log", encoding: .utf8)) ?? ""
            return Benchmarks.say("device: recorderd did not start: \(log.suffix(400))")
        }

        // The live subscribers, for the whole run, each counting what it receives: fused attitude
        // and the fixes (the whole device), or the accelerometer (the memory configuration).
        func count(_ stream: AsyncThrowingStream<[Record], any Error>?) -> Task<(samples: Int, gaps: Int), Never> {
            Task {
                var n = (samples: 0, gaps: 0)
                guard let stream else { return n }
                do { for try await batch in stream { for r in batch { if r.isSample { n.samples += 1 } else { n.gaps += 1 } } } } catch {}
                return n
            }
        }
        let imuStream = try! await client.subscribe(device: "imu0", sensorTypes: [load.fused ? .attitude : .accelerometer], rate: 50)
        let imuReader = count(imuStream)
        let fixReader = count(load.fused ? try! await client.subscribe(device: "gps0", sensorTypes: [.location]) : nil)
        let types: [SensorType] = load.fused ? [.accelerometer, .gyro, .attitude, .gravity, .userAcceleration, .rotationRate] : [.accelerometer, .gyro]
        let run = try! await client.startTask(identifier: "load", asyncActions: [
            .motion("motion", device: "imu0", options: MotionOptions(recorderTypes: types, frequency: load.imuRate)),
            AsyncActionConfiguration(identifier: "voice", device: "mic0", options: .microphone(MicrophoneOptions(saveAudioFile: true, levelInterval: 0.1))),
            AsyncActionConfiguration(identifier: "location", device: "gps0", options: .distance(DistanceOptions(saveCoordinates: true))),
        ])
        try? await Task.sleep(for: .seconds(2)) // every recorder streaming before the window
        let pid = IIOBenchmark.payloadPID(daemon)
        // What the window itself uses of the resident memory: the pages referenced in it.
        if let pid { FootprintBenchmark.clearReferences(pid: pid) }
        let cpu0 = IIOBenchmark.payloadCPU(daemon)
        let t0 = Date()
        try? await Task.sleep(for: .seconds(seconds))
        let cpu = IIOBenchmark.payloadCPU(daemon) - cpu0
        let wall = Date().timeIntervalSince(t0)
        let memory = pid.map(memoryFigures) ?? "unknown"
        let result = try! await run.finish()
        client.close()
        let imuCount = await imuReader.value
        let fixCount = await fixReader.value
        await IIOBenchmark.stop(daemon)
        let overruns = await IIOBenchmark.stopGenerator(generator)

        Benchmarks.say(String(format: "device under load (%.0f s window): recorderd %.1f ms CPU per second = %.2f %% of one core (target < 10 %%)",
                              wall, cpu / wall * 1000, cpu / wall * 100))
        Benchmarks.say("device under load: memory \(memory)")
        var lossless = overruns == 0
        for action in result.asyncResults {
            guard let file = action.file else {
                Benchmarks.say("device under load: \(action.error?.identifier ?? "?"): no file result (\(action.error?.errorDescription ?? ""))")
                lossless = false
                continue
            }
            let duration = (file.endUptime ?? file.startUptime) - file.startUptime
            // A WAV counts frames; a JSON-lines file records (the motion file: one per type and scan).
            let count = file.frameCount ?? file.sampleCount
            let what = file.frameCount != nil ? "audio frames" : "records"
            Benchmarks.say(String(format: "device under load: %@ %@: %d %@ in %.1f s (%.1f per s), dropped %d, gaps %d, errors %d",
                                  file.identifier, file.relativePath, count, what, duration, Double(count) / max(duration, 1e-9),
                                  file.droppedSamples, file.gapCount, file.errorCount ?? 0))
            if file.droppedSamples != 0 || file.gapCount != 0 { lossless = false }
        }
        Benchmarks.say("device under load: live subscribers got \(imuCount.samples) \(load.fused ? "attitude" : "accelerometer") samples (\(imuCount.gaps) gap records), \(fixCount.samples) fixes (\(fixCount.gaps) gap records); IIO generator overruns \(overruns)")
        if imuCount.gaps != 0 || fixCount.gaps != 0 { lossless = false }
        Benchmarks.say("device under load: \(lossless ? "no loss anywhere" : "LOSS (see above)")")
    }

    /// recorderd's resident memory by mapping group (`FootprintBenchmark.memory`). JACK's shared
    /// memory (the server's segments, mapped by the ALSA jack plugin's client) belongs to the
    /// simulated sound card, not to recorderd: shown apart and left out of the total.
    static func memoryFigures(pid: Int32) -> String {
        let figures = FootprintBenchmark.memory(pid: pid)
        let shared = figures["part shared memory"] ?? 0
        let parts = figures.filter { $0.key.hasPrefix("part ") && $0.key != "part shared memory" }.sorted { $0.value > $1.value }
        let total = parts.reduce(0) { $0 + $1.value }
        let touched = figures.filter { $0.key.hasPrefix("touched ") && $0.key != "touched shared memory" }.sorted { $0.value > $1.value }
        return String(format: "RSS %.1f MiB without JACK's shared memory (%.1f MiB): ", total, shared)
            + parts.map { String(format: "%@ %.1f", String($0.key.dropFirst(5)), $0.value) }.joined(separator: ", ")
            + String(format: "; of it referenced in the window (and 2 s after): %.1f MiB: ", touched.reduce(0) { $0 + $1.value })
            + touched.map { String(format: "%@ %.1f", String($0.key.dropFirst(8)), $0.value) }.joined(separator: ", ")
    }

    /// The namespace's script (JACK, gpsfake, then recorderd), ALSA's and recorderd's configuration.
    static func writeFiles(_ tree: FakeIIOTree, gpsLog: String, imuRate: Double) {
        let root = tree.root
        let devices = [
            #"{"name": "imu0", "kind": "iio", "uri": "local:", "frequency": \#(imuRate)}"#,
            #"{"name": "mic0", "kind": "alsa", "pcm": "recorderd_jack"}"#,
            #"{"name": "gps0", "kind": "gpsd", "host": "127.0.0.1", "port": 2947}"#,
        ]
        try! #"{"socket": "\#(root)/control.sock", "dataDirectory": "\#(root)/data", "ringSeconds": 30, "devices": [\#(devices.joined(separator: ", "))]}"#
            .write(toFile: root + "/recorderd.json", atomically: true, encoding: .utf8)
        // The u-blox log has ~23 sentences per fix: 4 ms per sentence is ~10 fixes/s. gpsfake
        // replays it in a loop (no -1) on gpsd's default port of the namespace's own loopback.
        try! """
        set -eu
        export ALSA_CONFIG_PATH=\(AudioBenchmark.jackConfiguration) JACK_DEFAULT_SERVER=\(server) JACK_NO_START_SERVER=1 JACK_NO_AUDIO_RESERVATION=1
        exec 2>>\(root)/load.log
        jackd --no-realtime -n \(server) -d dummy -r 48000 -p 256 -C 1 -P 1 >/dev/null 2>&1 &
        jack_wait -s \(server) -w -t 15 >/dev/null
        gpsfake -q -P 2947 -c 0.004 \(gpsLog) >/dev/null 2>&1 &
        for _ in $(seq 500); do (exec 3<>/dev/tcp/127.0.0.1/2947) 2>/dev/null && break; sleep 0.02; done
        exec \(IIOBenchmark.recorderd) --config \(root)/recorderd.json --log-level error
        """.write(toFile: root + "/load.sh", atomically: true, encoding: .utf8)
    }
}
