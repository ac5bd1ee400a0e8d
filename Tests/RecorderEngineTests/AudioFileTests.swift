import Foundation
import RecorderEngine
import RecorderModel
import RecorderRuntime
import RecorderTestSupport
import Testing

/// Sound levels and WAV files without a device.
struct AudioFileTests {
    @Test func levelsOfKnownSignals() {
        var meter = SoundLevelMeter(interval: 0.01)
        var levels: [SoundLevel] = []
        // A full-scale square wave: RMS = peak = 0 dBFS (32767 of 32768 → -0.000265 dB).
        let square = (0..<480).map { $0 % 2 == 0 ? Int16.max : -Int16.max }
        meter.add(AudioChunk(uptime: 10, sampleRate: 48000, channels: 1, samples: square), into: &levels)
        #expect(levels.count == 1)
        #expect(abs(levels[0].average - 20 * log10(32767.0 / 32768)) < 1e-12)
        #expect(abs(levels[0].peak - 20 * log10(32767.0 / 32768)) < 1e-12)
        #expect(abs(levels[0].uptime - 10.01) < 1e-12 && abs(levels[0].timeInterval - 0.01) < 1e-12)
        // Silence is the floor; a window spans chunks; the last partial window is flushed.
        levels.removeAll()
        meter.add(AudioChunk(uptime: 10.01, sampleRate: 48000, channels: 1, samples: Array(repeating: 0, count: 300)), into: &levels)
        meter.add(AudioChunk(uptime: 10.01625, sampleRate: 48000, channels: 1, samples: Array(repeating: 0, count: 300)), into: &levels)
        #expect(levels.count == 1 && levels[0].average == SoundLevelMeter.floor && levels[0].peak == SoundLevelMeter.floor)
        meter.flush(channels: 1, into: &levels)
        #expect(levels.count == 2 && abs(levels[1].timeInterval - 120.0 / 48000) < 1e-12)
        // Stereo: every sample of both channels counts.
        var stereo = SoundLevelMeter(interval: 0.001)
        levels.removeAll()
        stereo.add(AudioChunk(uptime: 0, sampleRate: 48000, channels: 2, samples: Array([16384, 0].repeated(48))), into: &levels)
        #expect(levels.count == 1 && abs(levels[0].average - 20 * log10((16384.0 * 16384 / 2).squareRoot() / 32768)) < 1e-12)
    }

    @Test func vectorisedMeasureEqualsTheScalarSums() {
        // Every length up to 40 (the SIMD body and the scalar tail), extremes included: two
        // -32768 in a pair are the largest 32-bit pair sum (2^31).
        var generator = SplitMix(seed: 1010)
        for count in 0...40 {
            for pattern in 0..<3 {
                let samples: [Int16] = (0..<count).map { _ in
                    switch pattern {
                    case 0: return Int16.random(in: .min ... .max, using: &generator)
                    case 1: return .min
                    default: return [Int16.min, .max, 0, -1][Int.random(in: 0..<4, using: &generator)]
                    }
                }
                let want = samples.reduce(into: (sum: Int64(0), peak: Int32(0))) { r, s in
                    r.sum += Int64(s) * Int64(s)
                    r.peak = max(r.peak, abs(Int32(s)))
                }
                let got = samples.withUnsafeBufferPointer { SoundLevelMeter.measure($0) }
                #expect(got.sumOfSquares == want.sum && got.peak == want.peak, "\(count) samples, pattern \(pattern)")
            }
        }
    }

    @Test func wavWritesAreGatheredAndFlushed() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/voice.wav"
        let writer = try WAVFileWriter(path: path, sampleRate: 48000, channels: 1)
        func size() -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1 }
        try writer.write(Array(repeating: 1, count: 960))
        #expect(size() == 44 && writer.framesWritten == 960)
        try writer.flush()
        #expect(size() == 44 + 1920)
        // A full buffer is written without a flush.
        try writer.write(Array(repeating: 2, count: WAVFileWriter.bufferSize / 2))
        #expect(size() == 44 + 1920 + WAVFileWriter.bufferSize)
        try writer.write(Array(repeating: 3, count: 10))
        try writer.close()
        #expect(size() == 44 + 1920 + WAVFileWriter.bufferSize + 20)
        #expect(WAVFileWriter.repairHeader(path: path)?.frames == 960 + WAVFileWriter.bufferSize / 2 + 10)
    }

    @Test(.enabled(if: Privileges.rootTestsEnabled("wavOnAFullDiskKeepsEveryWholeFrame")))
    func wavOnAFullDiskKeepsEveryWholeFrame() throws {
        let data = try Fixtures.temporaryDirectory()
        try #require(Privileges.mountTmpfs(at: data, size: "256k"))
        defer { Privileges.unmount(data); try? FileManager.default.removeItem(atPath: data) }
        let path = data + "/voice.wav"
        let writer = try WAVFileWriter(path: path, sampleRate: 48000, channels: 2)
        var failure: StorageError?
        // 0.5 s of stereo (96 KB) per write and flush, until the disk is full.
        for second in 0..<10 where failure == nil {
            do {
                try writer.write(Array(repeating: Int16(second), count: 48000))
                try writer.flush()
            } catch {
                failure = error
            }
        }
        #expect("\(failure.map { "\($0)" } ?? "none")".contains("No space left on device"))
        // The file holds whole frames only, exactly those framesWritten says; close still
        // writes a header that covers them.
        let frames = writer.framesWritten
        #expect(frames > 0)
        try? writer.close()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count == 44 + frames * 4)
        #expect(WAVFileWriter.header(sampleRate: 48000, channels: 2, dataBytes: frames * 4) == Array(bytes[0..<44]))
    }

    @Test func wavHeaderIsRepairedAfterACrash() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/voice.wav"
        let writer = try WAVFileWriter(path: path, sampleRate: 16000, channels: 2)
        try writer.write((0..<2000).map { Int16(truncatingIfNeeded: $0 * 7) })
        try writer.flush() // the recorder flushes at the end of every drain of its ring
        // Crash: never closed; the header still says 0, and a torn half frame follows.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([1, 2]))
        try handle.close()
        let repaired = try #require(WAVFileWriter.repairHeader(path: path))
        #expect(repaired.frames == 1000 && repaired.sampleRate == 16000 && repaired.channels == 2)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count == 44 + 4000)
        #expect(bytes[40..<44].elementsEqual(withUnsafeBytes(of: UInt32(4000).littleEndian) { Array($0) }))
        #expect(bytes[4..<8].elementsEqual(withUnsafeBytes(of: UInt32(4036).littleEndian) { Array($0) }))
        #expect(WAVFileWriter.header(sampleRate: 16000, channels: 2, dataBytes: 4000) == Array(bytes[0..<44]))
        try writer.close()
    }

    @Test func recoveryRewritesTheManifestOfAnInterruptedMicrophoneRun() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let run = dir + "/runs/voice/20260101T000000Z-x"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let writer = try WAVFileWriter(path: run + "/voice.wav", sampleRate: 48000, channels: 1)
        try writer.write(Array(repeating: 100, count: 4800))
        try writer.flush()
        try "{\"uptime\":1,\"timestamp\":0,\"timestampDate\":\"2026-01-01T00:00:00.000+00:00\",\"stepPath\":\"voice\"}\n"
            .write(toFile: run + "/voice.jsonl", atomically: true, encoding: .utf8)
        var wav = FileResult(identifier: "voice_audio", relativePath: "voice.wav", contentType: "audio/wav",
                             startDate: Date(timeIntervalSince1970: 1_767_225_600), startUptime: 1, units: [:])
        wav.frameCount = 0
        var result = TaskResult(taskIdentifier: "voice", taskRunUUID: UUID(), startDate: Date(timeIntervalSince1970: 1_767_225_600))
        result.asyncResults = [.file(wav)]
        try TaskResultStore.write(result, directory: run)
        _ = RunRecovery.recover(dataDirectory: dir, logger: Fixtures.logger)
        let recovered = try TaskResultStore.read(directory: run)
        #expect(recovered.status == .interrupted)
        let audio = try #require(recovered.asyncResults.compactMap(\.file).first { $0.contentType == "audio/wav" })
        #expect(audio.frameCount == 4800 && audio.sampleRate == 48000 && audio.channels == 1)
        #expect(audio.sha256 == SHA256.hexDigest(ofFile: run + "/voice.wav"))
        #expect(abs((audio.endUptime ?? 0) - 1.1) < 1e-9)
        try writer.close()
    }
}

extension Array {
    func repeated(_ times: Int) -> [Element] { (0..<times).flatMap { _ in self } }
}
