import Foundation
import RecorderClient
import RecorderModel

/// recorderd capturing 48 kHz mono S16 through ALSA (the real libasound, the `file` plugin reading
/// the real recording repeated, unpaced; the ring holds all of it) into a WAV plus 0.1 s level records, side by side with
/// `arecord` capturing the same PCM to a WAV file: CPU seconds per second of audio, and the ratio.
enum AudioBenchmark {
    /// Seconds of audio (`BENCH_AUDIO_SECONDS`, default 60): long enough that starting and
    /// finishing a task run weigh little against capture.
    static let seconds = ProcessInfo.processInfo.environment["BENCH_AUDIO_SECONDS"].flatMap { Int($0) } ?? 60

    static var recorderd: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("recorderd").path
    }

    static func run(fixture: String) async {
        guard FileManager.default.isExecutableFile(atPath: recorderd), FileManager.default.isExecutableFile(atPath: "/usr/bin/arecord") else {
            return Benchmarks.say("audio: skipped (needs recorderd beside the benchmark and arecord from alsa-utils)")
        }
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
        let environment = ProcessInfo.processInfo.environment.merging(["ALSA_CONFIG_PATH": dir + "/asound.conf"]) { $1 }

        // recorderd: CPU of its process while it captures and records every frame.
        try! #"{"dataDirectory": "\#(dir)/data", "ringSeconds": \#(seconds + 30), "devices": [{"name": "mic0", "kind": "alsa", "pcm": "recorderd_file", "frames": \#(frames)}]}"#
            .write(toFile: dir + "/recorderd.json", atomically: true, encoding: .utf8)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: recorderd)
        daemon.arguments = ["--config", dir + "/recorderd.json", "--socket", dir + "/control.sock", "--log-level", "error"]
        daemon.environment = environment
        try! daemon.run()
        defer { if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) } }
        var client: RecorderClient?
        for _ in 0..<1000 where client == nil {
            client = try? await RecorderClient.connect(socketPath: dir + "/control.sock")
            if client == nil { try? await Task.sleep(for: .milliseconds(10)) }
        }
        guard let client else { return Benchmarks.say("audio: recorderd did not start") }
        // Two warm-up runs first, so that the measured run's ring wraps: a daemon that has been
        // up for longer than its ring holds recycles the ring's memory, while a ring's first
        // fill pays the kernel's page faults (once per process).
        for _ in 0..<2 { _ = await capture(client: client, pid: daemon.processIdentifier, frames: frames, profile: false) }
        let ours = await capture(client: client, pid: daemon.processIdentifier, frames: frames, profile: true)
        client.close()
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()

        // arecord: the same PCM and frame count to a WAV file.
        let before = Benchmarks.childrenCPUSeconds()
        let peer = Process()
        peer.executableURL = URL(fileURLWithPath: "/usr/bin/arecord")
        peer.arguments = ["-q", "-D", "recorderd_file", "-f", "S16_LE", "-r", "48000", "-c", "1", "-t", "wav", "-s", "\(frames)", dir + "/arecord.wav"]
        peer.environment = environment
        try! peer.run()
        peer.waitUntilExit()
        let theirs = Benchmarks.childrenCPUSeconds() - before
        let audioSeconds = Double(frames) / 48000
        Benchmarks.say(String(format: "audio: %d s of 48 kHz mono: recorderd (WAV + levels) %.2f ms CPU per second of audio, arecord (WAV) %.2f ms, ratio %.2f×",
                              seconds, ours / audioSeconds * 1000, theirs / audioSeconds * 1000, ours / theirs))
    }

    /// One task run recording every frame of the input: recorderd's CPU seconds from the start
    /// until the WAV holds every frame.
    static func capture(client: RecorderClient, pid: Int32, frames: Int, profile: Bool) async -> Double {
        let stopProfile = profile ? Benchmarks.profile(pid: pid) : {}
        let cpu0 = cpuSeconds(pid: pid)
        let run = try! await client.startTask(identifier: "bench", asyncActions: [
            AsyncActionConfiguration(identifier: "voice", options: .microphone(MicrophoneOptions(saveAudioFile: true, levelInterval: 0.1))),
        ])
        let wavPath = run.runDirectory + "/voice.wav"
        while ((try? FileManager.default.attributesOfItem(atPath: wavPath)[.size] as? Int) ?? 0) < 44 + frames * 2 {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let cpu = cpuSeconds(pid: pid) - cpu0
        stopProfile()
        _ = try? await run.finish()
        return cpu
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
