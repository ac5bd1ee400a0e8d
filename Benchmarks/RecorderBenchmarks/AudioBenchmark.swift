import Foundation
import RecorderClient
import RecorderModel
import RecorderTestSupport

/// recorderd capturing 48 kHz mono S16 through the real libasound into a WAV plus 0.1 s level
/// records, side by side with `arecord` capturing the same PCM to a WAV file: CPU seconds per
/// second of audio, and the ratio. Two inputs:
/// - unpaced: ALSA's `file` plugin reading the real recording repeated (the per-frame cost of
///   each program, nothing else);
/// - real time: ALSA's jack plugin over a real JACK server with its dummy driver (what a
///   capture costs per second of wall-clock time, wake-ups included).
enum AudioBenchmark {
    /// Seconds of audio (`BENCH_AUDIO_SECONDS`, default 60 unpaced, 20 in real time).
    static let seconds = ProcessInfo.processInfo.environment["BENCH_AUDIO_SECONDS"].flatMap { Int($0) } ?? 60
    static let realTimeSeconds = ProcessInfo.processInfo.environment["BENCH_AUDIO_SECONDS"].flatMap { Int($0) } ?? 20

    static var recorderd: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("recorderd").path
    }

    static func run(fixture: String) async {
        guard FileManager.default.isExecutableFile(atPath: recorderd), FileManager.default.isExecutableFile(atPath: "/usr/bin/arecord") else {
            return Benchmarks.say("audio: skipped (needs recorderd beside the benchmark and arecord from alsa-utils)")
        }
        await unpaced(fixture: fixture)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/jackd") {
            await realTime()
        } else {
            Benchmarks.say("audio real time: skipped (needs jackd2 and libasound2-plugins)")
        }
    }

    static func unpaced(fixture: String) async {
        let dir = Benchmarks.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The fixture's samples (after its 44-byte header) repeated to `seconds` of audio.
        let wav = try! Data(contentsOf: URL(fileURLWithPath: fixture))
        let samples = wav.dropFirst(44)
        var raw = Data()
        while raw.count < seconds * 48000 * 2 { raw.append(samples) }
        raw = raw.prefix(seconds * 48000 * 2)
        try! raw.write(to: URL(fileURLWithPath: dir + "/input.raw"))
        let frames = raw.count / 2
        try! """
        </usr/share/alsa/alsa.conf>
        pcm.recorderd_file {
            type file
            slave.pcm { type null }
            file "/dev/null"
            infile "\(dir)/input.raw"
            format "raw"
        }
        """.write(toFile: dir + "/asound.conf", atomically: true, encoding: .utf8)
        let environment = ["ALSA_CONFIG_PATH": dir + "/asound.conf"]

        // recorderd: CPU of its process while it captures and records every frame. The ring
        // holds more than a run, so that the unpaced input never outruns the recorder.
        let device = #"{"name": "mic0", "kind": "alsa", "pcm": "recorderd_file", "frames": \#(frames)}"#
        guard let (daemon, client) = await startDaemon(dir: dir, ringSeconds: seconds + 30, device: device, environment: environment) else { return }
        // Two warm-up runs first, so that the measured run's ring wraps: a daemon that has been
        // up for longer than its ring holds recycles the ring's memory, while a ring's first
        // fill pays the kernel's page faults (once per process).
        for _ in 0..<2 { _ = await capture(client: client, pid: daemon.pid, frames: frames, profile: false) }
        let ours = await capture(client: client, pid: daemon.pid, frames: frames, profile: true)
        client.close()
        _ = try? await daemon.stop()

        let theirs = await arecord(pcm: "recorderd_file", arguments: ["-s", "\(frames)"], output: dir + "/arecord.wav", environment: environment)
        let audioSeconds = Double(frames) / 48000
        Benchmarks.say(String(format: "audio unpaced: %d s of 48 kHz mono: recorderd (WAV + levels) %.2f ms CPU per second of audio, arecord (WAV) %.2f ms, ratio %.2f×",
                              seconds, ours / audioSeconds * 1000, theirs / audioSeconds * 1000, ours / theirs))
    }

    static func realTime() async {
        let dir = Benchmarks.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = "recorderd-bench" // fixed: JACK reclaims a dead server's registry entry by name
        let environment = ["ALSA_CONFIG_PATH": jackConfiguration, "JACK_DEFAULT_SERVER": server, "JACK_NO_START_SERVER": "1",
                           "JACK_NO_AUDIO_RESERVATION": "1"]
        let jackd = try! await ChildProcess("/usr/bin/jackd", ["--no-realtime", "-n", server, "-d", "dummy", "-r", "48000", "-p", "256", "-C", "1", "-P", "1"],
                                            environment: environment, output: .file("/dev/null"))
        // SIGTERM (at the end, below): jackd then leaves JACK's shared registry clean.
        let waited = try! await ChildProcess.run("/usr/bin/jack_wait", ["-s", server, "-w", "-t", "15"], environment: environment,
                                                 output: .file("/dev/null"), timeout: 30)
        guard waited.status == 0 else {
            _ = try? await jackd.stop()
            return Benchmarks.say("audio real time: jackd did not start")
        }

        // A 5 s ring and a 6 s warm-up run: the measured run recycles the ring's memory.
        let device = #"{"name": "mic0", "kind": "alsa", "pcm": "recorderd_jack"}"#
        guard let (daemon, client) = await startDaemon(dir: dir, ringSeconds: 5, device: device, environment: environment) else {
            _ = try? await jackd.stop()
            return
        }
        _ = await record(client: client, pid: daemon.pid, seconds: 6, profile: false, peer: nil)

        // Measured side by side: both JACK clients of the same server capture over the same
        // window, so the VM's noise falls on both alike.
        let peer = try! await ChildProcess("/usr/bin/arecord", ["-q", "-D", "recorderd_jack", "-f", "S16_LE", "-r", "48000", "-c", "1", "-t", "wav",
                                                                // recorderd's period (20 ms) and buffer (8 periods): the same wake-ups
                                                                "--period-size=960", "--buffer-size=7680", "-d", "\(realTimeSeconds + 4)", dir + "/arecord.wav"],
                                           environment: environment)
        let (ours, theirs, wall) = await record(client: client, pid: daemon.pid, seconds: Double(realTimeSeconds), profile: true,
                                                peer: peer.pid)
        _ = try? await peer.wait(timeout: Double(realTimeSeconds) + 60)
        client.close()
        _ = try? await daemon.stop()
        _ = try? await jackd.stop()
        Benchmarks.say(String(format: "audio real time (JACK dummy driver, jack plugin, side by side): %d s of 48 kHz mono: recorderd (WAV + levels) %.2f ms CPU per second, arecord (WAV) %.2f ms, ratio %.2f×",
                              realTimeSeconds, ours / wall * 1000, theirs / wall * 1000, ours / theirs))
    }

    /// The ALSA configuration whose PCM `recorderd_jack` captures JACK's first capture port (the
    /// JACK tests' fixture).
    static let jackConfiguration = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/Fixtures/audio/jack-capture.asound.conf").standardized.path

    /// recorderd with one ALSA device; nil (and a line said) when it does not start.
    static func startDaemon(dir: String, ringSeconds: Int, device: String, environment: [String: String]) async -> (ChildProcess, RecorderClient)? {
        try! #"{"dataDirectory": "\#(dir)/data", "ringSeconds": \#(ringSeconds), "devices": [\#(device)]}"#
            .write(toFile: dir + "/recorderd.json", atomically: true, encoding: .utf8)
        let daemon = try! await ChildProcess(recorderd, ["--config", dir + "/recorderd.json", "--socket", dir + "/control.sock", "--log-level", "error"],
                                             environment: environment)
        guard let client = await Benchmarks.connect(dir + "/control.sock", while: daemon) else {
            _ = try? await daemon.stop(signal: SIGKILL)
            Benchmarks.say("audio: recorderd did not start")
            return nil
        }
        return (daemon, client)
    }

    static func startMicrophone(_ client: RecorderClient) async -> TaskRunHandle {
        try! await client.startTask(identifier: "bench", asyncActions: [
            AsyncActionConfiguration(identifier: "voice", options: .microphone(MicrophoneOptions(saveAudioFile: true, levelInterval: 0.1))),
        ])
    }

    /// One task run recording every frame of the unpaced input: recorderd's CPU seconds from the
    /// start until the WAV holds every frame.
    static func capture(client: RecorderClient, pid: Int32, frames: Int, profile: Bool) async -> Double {
        let stopProfile = profile ? Benchmarks.profile(pid: pid) : {}
        let cpu0 = cpuSeconds(pid: pid)
        let run = await startMicrophone(client)
        let wavPath = run.runDirectory + "/voice.wav"
        while ((try? FileManager.default.attributesOfItem(atPath: wavPath)[.size] as? Int) ?? 0) < 44 + frames * 2 {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let cpu = cpuSeconds(pid: pid) - cpu0
        stopProfile()
        _ = try? await run.finish()
        return cpu
    }

    /// One task run of real-time capture: recorderd's (and `peer`'s) CPU seconds over `seconds`
    /// of wall time, from 1 s after the start (opening the PCM and the JACK client are not
    /// counted) to before the finish (which ends the capture thread, whose time `schedstat` then
    /// no longer shows).
    static func record(client: RecorderClient, pid: Int32, seconds: Double, profile: Bool, peer: Int32?) async -> (cpu: Double, peer: Double, wall: Double) {
        let run = await startMicrophone(client)
        try? await Task.sleep(for: .seconds(1))
        let stopProfile = profile ? Benchmarks.profile(pid: pid) : {}
        let cpu0 = cpuSeconds(pid: pid)
        let peer0 = peer.map { cpuSeconds(pid: $0) } ?? 0
        let threads0 = threadSeconds(pid: pid)
        let start = Date()
        try? await Task.sleep(for: .seconds(seconds)) // the measurement window itself
        let cpu = cpuSeconds(pid: pid) - cpu0
        let peerCPU = (peer.map { cpuSeconds(pid: $0) } ?? 0) - peer0
        let wall = Date().timeIntervalSince(start)
        stopProfile()
        if ProcessInfo.processInfo.environment["BENCH_THREADS"] != nil {
            say(threads: threads0, pid: pid)
            if peer != nil { Benchmarks.say(String(format: "  arecord: %.1f ms CPU", peerCPU * 1000)) }
        }
        _ = try? await run.finish()
        return (cpu, peerCPU, wall)
    }

    /// arecord capturing `pcm` to a WAV: its CPU seconds (user + system).
    static func arecord(pcm: String, arguments: [String], output: String, environment: [String: String]) async -> Double {
        let before = Benchmarks.childrenCPUSeconds()
        _ = try! await ChildProcess.run("/usr/bin/arecord", ["-q", "-D", pcm, "-f", "S16_LE", "-r", "48000", "-c", "1", "-t", "wav"] + arguments + [output],
                                        environment: environment)
        return Benchmarks.childrenCPUSeconds() - before
    }

    /// CPU seconds and context switches of each thread of a process, by thread id and name.
    static func threadSeconds(pid: Int32) -> [String: (name: String, cpu: Double, switches: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var result: [String: (String, Double, Int)] = [:]
        for tid in tasks {
            let fields = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/schedstat", encoding: .utf8)) ?? "").split(separator: " ")
            let name = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            result[tid] = (name, (Double(fields.first ?? "") ?? 0) * 1e-9, Int(fields.count > 2 ? fields[2].trimmingCharacters(in: .whitespacesAndNewlines) : "") ?? 0)
        }
        return result
    }

    /// With `BENCH_THREADS`: each thread's CPU and wake-ups since `before` (for finding where a
    /// real-time capture's time goes).
    static func say(threads before: [String: (name: String, cpu: Double, switches: Int)], pid: Int32) {
        for (tid, now) in threadSeconds(pid: pid).sorted(by: { $0.key < $1.key }) {
            let then = before[tid] ?? (now.name, 0, 0)
            let cpu = (now.cpu - then.cpu) * 1000
            if cpu > 0.5 { Benchmarks.say(String(format: "  thread %@ %@: %.1f ms CPU, %d switches", tid, now.name, cpu, now.switches - then.switches)) }
        }
    }

    /// CPU seconds of a process, all threads (`/proc/PID/task/*/schedstat`, ns).
    static func cpuSeconds(pid: Int32) -> Double {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0.0) { total, tid in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(tid)/schedstat", encoding: .utf8)) ?? ""
            return total + (Double(text.split(separator: " ").first ?? "") ?? 0) * 1e-9
        }
    }
}
