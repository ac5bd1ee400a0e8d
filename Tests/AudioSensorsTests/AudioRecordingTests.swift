import Foundation
import RecorderClient
import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderTestSupport
import Testing

// The time limit guards against a hang, not a speed: under a loaded machine (every suite started
// at once on two cores) the first test took over a minute once.
/// recorderd capturing through the real libasound (ALSA's file plugin reading the real recording).
@Suite(.serialized, .timeLimit(.minutes(4))) struct AudioRecordingTests {
    /// Starts recorderd with `devices` and the fixture's ALSA configuration; returns it and a client.
    static func daemon(_ fixture: AudioFixture, devices: String) async throws -> (ChildProcess, RecorderClient) {
        var configuration = try TestConfiguration(directory: fixture.directory, devices: [try Fixtures.device(devices)])
        configuration.daemon.retryInterval = 0.2
        let daemon = try await TestDaemon.start(.executable(environment: fixture.environment), configuration)
        return (daemon.process!, try await daemon.client())
    }

    @Test(.ownThread) func capturedWAVIsTheInputFrameForFrameAndLevelsAreItsRMSAndPeak() async throws {
        let fixture = try AudioFixture()
        defer { fixture.remove() }
        let frames = fixture.input.samples.count
        #expect(frames == 68545 && fixture.input.sampleRate == 48000 && fixture.input.channels == 1)
        let (daemon, client) = try await Self.daemon(fixture, devices: #"{"name":"mic0","kind":"alsa","pcm":"recorderd_file","sampleRate":48000,"channels":1,"format":"S16_LE","frames":\#(frames)}"#)
        let info = try #require(try await client.devices().first)
        #expect(info.state != .unavailable, "\(info)")
        #expect(info.details?["sampleRate"] == "48000")

        let run = try await client.startTask(identifier: "voice", asyncActions: [
            AsyncActionConfiguration(identifier: "voice", options: .microphone(MicrophoneOptions(saveAudioFile: true, levelInterval: 0.1))),
        ])
        // The file plugin delivers as fast as it is read; recorderd reads it when its frames are
        // due (AudioTimeline), from the start of capture over the audio's duration (68545 / 48000
        // s). The run is finished once the clock has passed the end of the audio.
        try await Task.sleep(for: .milliseconds(Int(Double(frames) / 48.0) + 300))
        let result = try await run.finish()

        let wav = try AudioFixture.parse(run.runDirectory + "/voice.wav")
        #expect(wav.sampleRate == 48000 && wav.channels == 1)
        #expect(wav.samples == fixture.input.samples, "the WAV holds exactly the captured frames")
        #expect(wav.dataSize == frames * 2 && wav.riffSize == 36 + frames * 2 && wav.fileSize == 44 + frames * 2)
        let audio = try #require(result.asyncResults.compactMap(\.file).first { $0.contentType == "audio/wav" })
        #expect(audio.relativePath == "voice.wav" && audio.frameCount == frames && audio.sampleRate == 48000 && audio.channels == 1)
        #expect(audio.sha256 == SHA256.hexDigest(ofFile: run.runDirectory + "/voice.wav"))

        let records = try Fixtures.records(run.runDirectory + "/voice.jsonl").filter { $0.average != nil }
        #expect(records.count == frames / 4800 + 1, "14 windows of 0.1 s and the partial last one")
        for (k, r) in records.enumerated() {
            let window = fixture.input.samples[(k * 4800)..<min(frames, (k + 1) * 4800)]
            let want = AudioFixture.levels(window)
            #expect(abs(r.average! - want.average) < 1e-9, "window \(k): average \(r.average!) vs \(want.average)")
            #expect(abs(r.peak! - want.peak) < 1e-9, "window \(k): peak \(r.peak!) vs \(want.peak)")
            #expect(abs(r.timeInterval! - Double(window.count) / 48000) < 1e-12)
            #expect(r.unit == "dBFS")
        }
        let levels = try #require(result.asyncResults.compactMap(\.file).first { $0.relativePath == "voice.jsonl" })
        #expect(levels.sampleCount == records.count && levels.frequency == 10)

        // Live tail: levels every 0.1 s through stream.subscribe. The recording's end released the
        // device; the subscription starts capture anew (a subscriber reads only what comes after it).
        var live: [Record] = []
        let stream = try await client.subscribe(device: "mic0", rate: 10)
        for try await batch in stream {
            live += batch.filter { $0.average != nil }
            if live.count >= frames / 4800 { break }
        }
        for (k, r) in live.prefix(frames / 4800).enumerated() {
            let want = AudioFixture.levels(fixture.input.samples[(k * 4800)..<((k + 1) * 4800)])
            #expect(abs(r.average! - want.average) < 1e-9 && abs(r.peak! - want.peak) < 1e-9, "live window \(k)")
        }
        client.close()
        #expect(try await daemon.stop(signal: SIGTERM, timeout: 15) == 0)
    }

    /// ALSA's `file` plugin hands over frames as fast as they are read (a 2 s recording from it
    /// once held 5.7 hours of audio, stamped hours ahead of the clock): recorderd reads it when its
    /// frames are due, so the audio is continuous and ends within one period of the recording's
    /// end on CLOCK_MONOTONIC, nothing lost, nothing discarded.
    @Test(.ownThread) func anUnpacedPluginIsRecordedInRealTime() async throws {
        let fixture = try AudioFixture(infile: "/dev/zero")
        defer { fixture.remove() }
        let (daemon, client) = try await Self.daemon(fixture, devices: #"{"name":"mic0","kind":"alsa","pcm":"recorderd_file","sampleRate":48000,"channels":1,"format":"S16_LE"}"#)
        let run = try await client.startTask(identifier: "voice", asyncActions: [
            AsyncActionConfiguration(identifier: "voice", options: .microphone(MicrophoneOptions(saveAudioFile: true, levelInterval: 0.1))),
        ])
        // About two seconds of recording: until a live subscriber has had 20 windows of 0.1 s
        // (paced, they come in real time; the suite's time limit bounds the wait).
        var windows = 0
        for try await batch in try await client.subscribe(device: "mic0", rate: 10) {
            windows += batch.filter { $0.average != nil }.count
            if windows >= 20 { break }
        }
        let result = try await run.finish()
        let files = result.asyncResults.compactMap(\.file)
        let audio = try #require(files.first { $0.contentType == "audio/wav" })
        let levels = try #require(files.first { $0.relativePath == "voice.jsonl" })
        let end = try #require(levels.endUptime, "the recording's end")
        let frames = try #require(audio.frameCount)
        let audioEnd = audio.startUptime + Double(frames) / 48_000
        let period = 0.02
        #expect(audio.startUptime >= levels.startUptime - period, "audio from \(audio.startUptime), the recording from \(levels.startUptime)")
        #expect(audioEnd <= end + period, "the audio ends at \(audioEnd), \(audioEnd - end) s after the recording (\(frames) frames)")
        #expect(audioEnd >= end - 0.25, "the audio ends at \(audioEnd), \(end - audioEnd) s before the recording")
        #expect(audio.droppedSamples == 0 && audio.gapCount == 0, "\(audio)")
        let records = try Fixtures.records(run.runDirectory + "/voice.jsonl")
        #expect(!records.contains { $0.isGap || $0.event == "discarded" })
        let wav = try AudioFixture.parse(run.runDirectory + "/voice.wav")
        #expect(wav.samples.count == frames && wav.samples.allSatisfy { $0 == 0 })
        client.close()
        #expect(try await daemon.stop(signal: SIGTERM, timeout: 15) == 0)
    }

    @Test(.ownThread) func missingPCMIsAClearErrorAndTheDaemonStaysHealthy() async throws {
        let fixture = try AudioFixture()
        defer { fixture.remove() }
        let (daemon, client) = try await Self.daemon(fixture, devices: #"{"name":"mic0","kind":"alsa","pcm":"no_such_pcm"}"#)
        let info = try #require(try await client.devices().first)
        #expect(info.state == .unavailable)
        #expect(info.error?.contains("no_such_pcm") == true, "\(info.error ?? "")")
        let run = try await client.startTask(identifier: "voice", asyncActions: [
            AsyncActionConfiguration(identifier: "voice", options: .microphone(MicrophoneOptions())),
        ])
        let result = try await run.finish()
        #expect(result.asyncResults.compactMap(\.error).first?.errorDescription.contains("no_such_pcm") == true)
        #expect(try await client.status().pid == daemon.pid)
        client.close()
        #expect(try await daemon.stop(signal: SIGTERM, timeout: 15) == 0)
    }

    /// The real executable recording a WAV onto a disk that fills during it: the WAV keeps every
    /// whole frame with a header that says so, the levels file every whole line, the run's
    /// manifest is written (its reserve is freed for it), and the daemon answers at once.
    @Test(.enabled(if: Privileges.rootTestsEnabled("aDiskThatFillsDuringAWAVKeepsEveryWholeFrame")), .ownThread)
    func aDiskThatFillsDuringAWAVKeepsEveryWholeFrame() async throws {
        let fixture = try AudioFixture()
        defer { fixture.remove() }
        let data = fixture.directory + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        // 384 KiB: the run's 256 KiB reserve leaves less than the 137 KB of audio.
        try #require(Privileges.mountTmpfs(at: data, size: "384k"))
        defer { Privileges.unmount(data) }
        let frames = fixture.input.samples.count
        let (daemon, client) = try await Self.daemon(fixture, devices: #"{"name":"mic0","kind":"alsa","pcm":"recorderd_file","sampleRate":48000,"channels":1,"format":"S16_LE","frames":\#(frames)}"#)
        let run = try await client.startTask(identifier: "voice", asyncActions: [
            AsyncActionConfiguration(identifier: "voice", options: .microphone(MicrophoneOptions(saveAudioFile: true, levelInterval: 0.1))),
        ])
        var status = try await client.status()
        let deadline = Deadline(seconds: 20)
        while status.taskRuns.first?.failed == nil, !deadline.hasPassed {
            try await Task.sleep(for: .milliseconds(100))
            status = try await client.status()
        }
        #expect(status.taskRuns.first?.failed == ["voice"], "\(status.taskRuns)")
        // It goes on answering (how fast is the benchmark's business, not a test's).
        for _ in 0..<10 { #expect(try await client.status().taskRuns.first?.failed == ["voice"]) }
        let result = try await run.finish()
        #expect(result.asyncResults.compactMap(\.error).first?.errorDescription.contains("No space left on device") == true)
        let wav = try AudioFixture.parse(run.runDirectory + "/voice.wav")
        let audio = try #require(result.asyncResults.compactMap(\.file).first { $0.contentType == "audio/wav" })
        #expect(wav.samples.count > 0 && wav.samples.count < frames)
        #expect(wav.samples[...] == fixture.input.samples[..<wav.samples.count], "the WAV holds the first frames, exactly")
        #expect(wav.dataSize == wav.samples.count * 2 && wav.fileSize == 44 + wav.dataSize && audio.frameCount == wav.samples.count)
        #expect(audio.sha256 == SHA256.hexDigest(ofFile: run.runDirectory + "/voice.wav"))
        // The levels file: whole lines only, as many as its result counts.
        let levels = try Fixtures.records(run.runDirectory + "/voice.jsonl")
        let levelsFile = try #require(result.asyncResults.compactMap(\.file).first { $0.relativePath == "voice.jsonl" })
        #expect(levels.filter { $0.average != nil }.count == levelsFile.sampleCount)
        #expect(levelsFile.sha256 == SHA256.hexDigest(ofFile: run.runDirectory + "/voice.jsonl"))
        #expect(try TaskResultStore.read(directory: run.runDirectory).status == .finished)
        client.close()
        #expect(try await daemon.stop(signal: SIGTERM, timeout: 15) == 0)
    }
}
