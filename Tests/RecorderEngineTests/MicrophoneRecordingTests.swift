import Foundation
import RecorderConfiguration
import RecorderEngine
import RecorderModel
import RecorderProtocol
import RecorderRuntime
import RecorderTestSupport
import Testing

/// A microphone source of our own: the test hands it the chunks to deliver.
final class ScriptedAudioSource: SensorSource, @unchecked Sendable {
    // @unchecked: `sink` is a LockedValue.
    let sink = LockedValue<(any FrameSink)?>(nil)
    let sampleRate: Int

    init(sampleRate: Int = 48000) {
        self.sampleRate = sampleRate
    }

    func open() throws -> DeviceCapabilities {
        DeviceCapabilities(sensorTypes: [.soundLevel], rate: 50, details: ["sampleRate": "\(sampleRate)", "channels": "1"])
    }

    func start(sink: any FrameSink) throws { self.sink.withLock { $0 = sink } }

    func stop() { sink.withLock { $0 = nil } }

    /// 2 ms chunks (96 frames of `value`) starting at `uptime`, one after another.
    static func chunks(from uptime: Double, count: Int, value: Int16 = 1000) -> [SensorFrame] {
        (0..<count).map { .audio(AudioChunk(uptime: uptime + Double($0) * 0.002, sampleRate: 48000, channels: 1, samples: Array(repeating: value, count: 96))) }
    }

    func deliver(_ frames: [SensorFrame]) { sink.withLock { $0 }?.deliver(frames) }
}

struct ScriptedAudioBackend: SensorBackend {
    let source: ScriptedAudioSource
    var kind: String { "scripted-audio" }
    var configurationKeys: [String] { ["name"] }
    var servedActionTypes: Set<AsyncActionType> { [.microphone] }
    func makeSource(configuration: DeviceConfiguration, baseDirectory: String) throws(ConfigurationError) -> any SensorSource { source }
}

/// Microphone recordings in the engine, without a device: frames lost in the ring, and frames
/// that wait in the ring when the device goes quiet.
@Suite(.timeLimit(.minutes(1))) struct MicrophoneRecordingTests {
    static func start(_ source: ScriptedAudioSource, data: String, ringSeconds: Double = 0.1) async throws -> (TaskRunRegistry, StartedTaskRun) {
        var configuration = DaemonConfiguration()
        // By default a ring of 64 chunks (its smallest), so that a burst overflows it.
        configuration.ringSeconds = ringSeconds
        configuration.devices = [DeviceConfiguration(name: "mic0", kind: "scripted-audio", json: .object(["name": .string("mic0"), "kind": .string("scripted-audio")]))]
        let devices = DeviceRegistry(configuration: configuration, backends: [ScriptedAudioBackend(source: source)], baseDirectory: "/", logger: Fixtures.logger)
        devices.probeAll()
        let runs = TaskRunRegistry(dataDirectory: data, devices: devices, ringSeconds: 0.1, logger: Fixtures.logger)
        let start = try await runs.start(taskIdentifier: "voice", asyncActions: [
            AsyncActionConfiguration(identifier: "voice", options: .microphone(MicrophoneOptions(saveAudioFile: true, levelInterval: 0.1))),
        ])
        return (runs, start)
    }

    /// Waits until the file at `path` is `size` bytes (at most `timeout` seconds).
    static func waitForSize(_ path: String, _ size: Int, timeout: Double) async throws {
        let deadline = Deadline(seconds: timeout)
        while ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) != size {
            guard !deadline.hasPassed else { throw POSIXError(.ETIMEDOUT) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test(.ownThread) func chunksLostInTheRingAreAGapOfTheirFramesAndDuration() async throws {
        let data = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let source = ScriptedAudioSource()
        let (runs, start) = try await Self.start(source, data: data)
        let t0 = SystemClock.monotonicUptime() + 0.01
        source.deliver(ScriptedAudioSource.chunks(from: t0, count: 2))
        // The first delivery is drained at once: the WAV holds its frames.
        try await Self.waitForSize(start.runDirectory + "/voice.wav", 44 + 2 * 192, timeout: 5)
        // A burst of 100 chunks into a ring of 64: the 36 oldest are overwritten unread.
        source.deliver(ScriptedAudioSource.chunks(from: t0 + 0.004, count: 100))
        // The stop must come after the last frame's time (frames measured later are cut).
        try await Task.sleep(until: .now + .seconds(max(0, t0 + 0.21 - SystemClock.monotonicUptime())))
        let result = try await runs.finish(start.taskRunUUID)

        let records = try Fixtures.records(start.runDirectory + "/voice.jsonl")
        let gaps = records.filter(\.isGap)
        try #require(gaps.count == 1)
        #expect(gaps[0].droppedSamples == 36 * 96 && abs((gaps[0].duration ?? 0) - 0.072) < 1e-9, "\(gaps[0])")
        #expect(abs((gaps[0].uptime ?? 0) - (t0 + 0.004 + 36 * 0.002)) < 1e-9)
        let file = try #require(result.asyncResults.compactMap(\.file).first { $0.relativePath == "voice.jsonl" })
        #expect(file.droppedSamples == 36 * 96 && file.gapCount == 1)
        // The WAV keeps the wall clock's timeline: the 36 lost chunks are silence in it, and its
        // result counts them and says where they are.
        let audio = try #require(result.asyncResults.compactMap(\.file).first { $0.contentType == "audio/wav" })
        #expect(audio.frameCount == 102 * 96)
        #expect(audio.droppedSamples == 36 * 96 && audio.gapCount == 1)
        // The gap record's time is written to the nanosecond; the result's is the full Double.
        let silence = try #require(audio.gaps?.first)
        #expect(audio.gaps?.count == 1 && abs(silence.uptime - gaps[0].uptime!) <= 1e-9, "\(silence.uptime) vs \(gaps[0].uptime!)")
        #expect(audio.gaps == [AudioGap(uptime: silence.uptime, frame: 2 * 96, frameCount: 36 * 96)])
        let wav = try Data(contentsOf: URL(fileURLWithPath: start.runDirectory + "/voice.wav"))
        let samples: [Int16] = wav.dropFirst(44).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let heard = 2 * 96, silent = 36 * 96, total = 102 * 96
        #expect(samples.count == total)
        #expect(samples[0..<heard].allSatisfy { $0 == 1000 })
        #expect(samples[heard..<(heard + silent)].allSatisfy { $0 == 0 })
        #expect(samples[(heard + silent)...].allSatisfy { $0 == 1000 })
        // No level window spans the gap: each ends before it or starts after it.
        let levels = records.filter { $0.average != nil }
        let gapAt = try #require(gaps[0].uptime)
        #expect(!levels.isEmpty && levels.allSatisfy { l in
            let end = l.uptime ?? 0, begin = end - (l.timeInterval ?? 0)
            return end <= t0 + 0.004 + 1e-9 || begin >= gapAt - 1e-9
        }, "\(levels)")
    }

    @Test(.ownThread) func framesDeliveredJustBeforeTheDeviceGoesQuietAreWrittenWithoutAStop() async throws {
        let data = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let source = ScriptedAudioSource()
        let (runs, start) = try await Self.start(source, data: data)
        let t0 = SystemClock.monotonicUptime() + 0.01
        source.deliver(ScriptedAudioSource.chunks(from: t0, count: 1))
        try await Self.waitForSize(start.runDirectory + "/voice.wav", 44 + 192, timeout: 5)
        // Within the drain interval of the last drain: no drain now; then the device is quiet.
        source.deliver(ScriptedAudioSource.chunks(from: t0 + 0.002, count: 1))
        // The sweep writes it (within a second) although nothing else arrives.
        try await Self.waitForSize(start.runDirectory + "/voice.wav", 44 + 2 * 192, timeout: 5)
        _ = try await runs.finish(start.taskRunUUID)
    }

    @Test(.enabled(if: Privileges.rootTestsEnabled("aFullDiskStopsAMicrophoneRecordingWithAValidWAV")), .ownThread)
    func aFullDiskStopsAMicrophoneRecordingWithAValidWAV() async throws {
        let data = try Fixtures.temporaryDirectory()
        try #require(Privileges.mountTmpfs(at: data, size: "1m"))
        defer { Privileges.unmount(data); try? FileManager.default.removeItem(atPath: data) }
        // 480 kHz, so that 1 MiB (less the run's 256 KiB reserve) fills in under a second of audio.
        let source = ScriptedAudioSource(sampleRate: 480_000)
        let (runs, start) = try await Self.start(source, data: data, ringSeconds: 30)
        let t0 = SystemClock.monotonicUptime() + 0.01
        let chunks: [SensorFrame] = (0..<50).map { i in
            .audio(AudioChunk(uptime: t0 + Double(i) * 0.02, sampleRate: 480_000, channels: 1,
                              samples: (0..<9600).map { Int16(truncatingIfNeeded: i * 9600 + $0) }))
        }
        source.deliver(chunks)
        try await Task.sleep(until: .now + .seconds(max(0, t0 + 1.01 - SystemClock.monotonicUptime())))
        let result = try await runs.finish(start.taskRunUUID)

        let error = try #require(result.asyncResults.compactMap(\.error).first)
        #expect(error.errorDescription.contains("No space left on device"), "\(error.errorDescription)")
        // The WAV keeps every whole frame written, its header says so, and its samples are the
        // delivered ones from the start.
        let path = start.runDirectory + "/voice.wav"
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let frames = (bytes.count - 44) / 2
        #expect(frames > 100_000 && frames < 50 * 9600 && (bytes.count - 44) % 2 == 0)
        #expect(WAVFileWriter.header(sampleRate: 480_000, channels: 1, dataBytes: frames * 2) == Array(bytes[0..<44]))
        #expect((0..<frames).allSatisfy { Int16(bitPattern: UInt16(bytes[44 + 2 * $0]) | UInt16(bytes[45 + 2 * $0]) << 8) == Int16(truncatingIfNeeded: $0) })
        let audio = try #require(result.asyncResults.compactMap(\.file).first { $0.contentType == "audio/wav" })
        #expect(audio.frameCount == frames && audio.sha256 == SHA256.hexDigest(ofFile: path))
        // The levels file holds whole lines.
        let levels = try Data(contentsOf: URL(fileURLWithPath: start.runDirectory + "/voice.jsonl"))
        #expect(levels.last == UInt8(ascii: "\n"))
        #expect(try TaskResultStore.read(directory: start.runDirectory).status == .finished)
    }
}
