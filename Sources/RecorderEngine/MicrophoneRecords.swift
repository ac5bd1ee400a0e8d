import FoundationEssentials
import Glibc
import RecorderModel
import RecorderRuntime

/// A microphone recorder's content: sound levels over windows of `levelInterval` seconds, gap
/// records for lost audio measured in frames, and (recordings that save it) the WAV, in which
/// lost audio is written as silence so that its timeline stays the wall clock's.
struct MicrophoneRecords: RecordProducer {
    var meter: SoundLevelMeter
    /// Where the audio stands in time (measures lost chunks in frames).
    var audio: AudioContinuity
    var wav: WAVOutput?
    /// Channels of the audio seen (the last, partial window's level).
    var channels = 1
    private var levels: [SoundLevel] = []

    /// The WAV of a recording and its file result.
    struct WAVOutput {
        let writer: WAVFileWriter
        var result: FileResult
        /// The recording's JSON-lines start (the WAV's start date is reckoned from it).
        let recordingStartUptime: Double
        let recordingStartDate: Date
        /// Set on a write failure: nothing more is written.
        var failed = false
    }

    init(levelInterval: Double, audio: AudioContinuity, wav: WAVOutput?, channels: Int = 1) {
        meter = SoundLevelMeter(interval: levelInterval)
        self.audio = audio
        self.wav = wav
        self.channels = channels
        levels.reserveCapacity(16)
    }

    mutating func add(_ frame: SensorFrame, to sink: inout RecordSink) {
        switch frame {
        case .audio(let chunk):
            addAudio(chunk, to: &sink)
        case .soundLevel(let level):
            sink.appendSoundLevel(level)
        case .gap(let uptime, let gapTypes, let dropped, _) where gapTypes.contains(.soundLevel):
            meter.reset()
            writeSilence(frames: dropped, endingAt: uptime, sink: &sink)
            sink.appendGap(uptime: uptime, sensorType: .soundLevel, droppedSamples: dropped, duration: audio.duration(ofFrames: dropped))
        case .discarded(let uptime, let types, let count) where types.contains(.soundLevel):
            sink.appendDiscarded(uptime: uptime, sensorType: .soundLevel, count: count, duration: audio.duration(ofFrames: count))
        default:
            break
        }
    }

    /// Chunks the ring lost count by time (the ring counts chunks).
    mutating func ringLost(_ count: Int, before uptime: Double, to sink: inout RecordSink) {
        meter.reset()
        var dropped = count
        var duration: Double?
        if let lost = audio.lost(before: uptime) { (dropped, duration) = lost }
        writeSilence(frames: dropped, endingAt: uptime, sink: &sink)
        sink.appendGap(uptime: uptime, sensorType: .soundLevel, droppedSamples: dropped, duration: duration)
    }

    /// The frames of a chunk measured within the sink's bounds (a chunk may straddle a
    /// recording's start or stop) go to the WAV and the level meter.
    mutating func addAudio(_ chunk: AudioChunk, to sink: inout RecordSink) {
        let period = 1 / Double(chunk.sampleRate)
        audio.read(chunk)
        channels = chunk.channels
        var first = 0
        if chunk.uptime < sink.lowerBound {
            first = min(chunk.frames, Int(saturating: ((sink.lowerBound - chunk.uptime) / period).rounded(.up)))
        }
        var end = chunk.frames
        if let stop = sink.stopUptime { end = max(first, min(end, Int(saturating: ((stop - chunk.uptime) / period).rounded(.down)) &+ 1)) }
        guard end > first else { return }
        var part = chunk
        if first > 0 || end < chunk.frames {
            part.samples = Array(chunk.samples[(first * chunk.channels)..<(end * chunk.channels)])
            part.uptime = chunk.uptime + Double(first) * period
        }
        if var output = wav, !output.failed {
            if output.writer.framesWritten == 0 { output.starts(at: part.uptime) }
            do {
                try output.writer.write(part.samples)
                wav = output
            } catch {
                wav = output
                return fail(error, sink: &sink)
            }
        }
        levels.removeAll(keepingCapacity: true)
        meter.add(part, into: &levels)
        for level in levels { sink.appendSoundLevel(level) }
    }

    /// Lost audio (`lost` frames ending at `uptime`) becomes silence in the WAV, as much of it as
    /// lies within the bounds; the WAV's result counts the frames and says where they are.
    mutating func writeSilence(frames lost: Int, endingAt uptime: Double, sink: inout RecordSink) {
        guard var output = wav, !output.failed, lost > 0, audio.sampleRate > 0 else { return }
        let rate = Double(audio.sampleRate)
        let start = max(uptime - Double(lost) / rate, sink.lowerBound)
        let end = min(uptime, sink.stopUptime ?? .infinity)
        let frames = Int(saturating: ((end - start) * rate).rounded())
        guard frames > 0 else { return }
        let first = output.writer.framesWritten
        if first == 0 { output.starts(at: start) }
        do {
            try output.writer.writeSilence(frames: frames)
        } catch {
            wav = output
            return fail(error, sink: &sink)
        }
        output.result.droppedSamples += frames
        output.result.gapCount += 1
        output.result.gaps = (output.result.gaps ?? []) + [AudioGap(uptime: uptime, frame: first, frameCount: frames)]
        wav = output
    }

    /// Writes the WAV's buffered samples (at the end of every drain).
    mutating func flush(to sink: inout RecordSink, now: Double) {
        guard var output = wav, !output.failed else { return }
        do {
            try output.writer.flush()
            output.result.frameCount = output.writer.framesWritten
            wav = output
            output.writer.syncIfDue(now: now)
        } catch {
            fail(error, sink: &sink)
        }
    }

    /// The last, partial window's level.
    mutating func finish(to sink: inout RecordSink) {
        levels.removeAll(keepingCapacity: true)
        meter.flush(channels: channels, into: &levels)
        for level in levels { sink.appendSoundLevel(level) }
    }

    /// Closes the WAV; its result ends with its last frame.
    mutating func close() -> StorageError? {
        guard var output = wav, !output.writer.isClosed else { return nil }
        defer { wav = output }
        var failure: StorageError?
        do {
            try output.writer.close()
            output.result.frameCount = output.writer.framesWritten
            output.result.sha256 = SHA256.hexDigest(ofFile: output.writer.path)
        } catch {
            failure = error
        }
        if let rate = output.result.sampleRate, rate > 0 {
            let duration = Double(output.result.frameCount ?? 0) / Double(rate)
            output.result.endUptime = output.result.startUptime + duration
            output.result.endDate = output.result.startDate.addingTimeInterval(duration)
        }
        return failure
    }

    /// Disk full or I/O error writing the WAV: it keeps every whole frame written so far; the
    /// recording stops at the failure.
    private mutating func fail(_ error: StorageError, sink: inout RecordSink) {
        if var output = wav {
            output.failed = true
            output.result.frameCount = output.writer.framesWritten
            wav = output
        }
        if sink.failure == nil { sink.failure = error }
    }

    mutating func abandon() {
        wav?.failed = true
    }

    func describe(_ result: inout FileResult) {
        // One record per level interval.
        result.frequency = 1 / meter.interval
    }

    var fileResults: [FileResult] { wav.map { [$0.result] } ?? [] }
}

extension MicrophoneRecords.WAVOutput {
    /// The WAV's first frame was measured at `uptime`: frame `k` of the file is at
    /// `uptime + k / sampleRate`.
    mutating func starts(at uptime: Double) {
        result.startUptime = uptime
        result.startDate = recordingStartDate.addingTimeInterval(uptime - recordingStartUptime)
    }
}
