import Foundation
import RecorderModel

/// Sound levels of captured audio over consecutive windows of `interval` seconds of frames:
/// `average` is the RMS level and `peak` the largest magnitude, both in dBFS (full scale 32768),
/// over every sample of every channel in the window. A level's `uptime` is the end of its window.
public struct SoundLevelMeter: Sendable {
    /// The level of digital silence (RMS 0), as AVAudioRecorder reports it.
    public static let floor = -160.0

    public let interval: Double
    private var sumOfSquares = 0.0
    private var peak: Int32 = 0
    private var frames = 0
    private var windowStart: Double?
    private var sampleRate = 0

    public init(interval: Double) {
        self.interval = interval
    }

    /// Adds a chunk; appends a level for every window it completes.
    public mutating func add(_ chunk: AudioChunk, into levels: inout [SoundLevel]) {
        sampleRate = chunk.sampleRate
        let windowFrames = max(1, Int((interval * Double(chunk.sampleRate)).rounded()))
        let channels = max(1, chunk.channels)
        chunk.samples.withUnsafeBufferPointer { samples in
            var frame = 0
            let total = chunk.frames
            while frame < total {
                if windowStart == nil { windowStart = chunk.uptime + Double(frame) / Double(chunk.sampleRate) }
                let take = min(windowFrames - frames, total - frame)
                for i in (frame * channels)..<((frame + take) * channels) {
                    let s = Int32(samples[i])
                    sumOfSquares += Double(s * s)
                    peak = max(peak, abs(s))
                }
                frames += take
                frame += take
                if frames == windowFrames { emit(channels: channels, into: &levels) }
            }
        }
    }

    /// Emits the partial window left at the end of a recording, if any.
    public mutating func flush(channels: Int, into levels: inout [SoundLevel]) {
        if frames > 0 { emit(channels: max(1, channels), into: &levels) }
    }

    /// Forgets a partial window (after lost frames: a window never spans a gap).
    public mutating func reset() {
        sumOfSquares = 0
        peak = 0
        frames = 0
        windowStart = nil
    }

    private mutating func emit(channels: Int, into levels: inout [SoundLevel]) {
        let duration = Double(frames) / Double(sampleRate)
        let rms = (sumOfSquares / Double(frames * channels)).squareRoot()
        levels.append(SoundLevel(uptime: (windowStart ?? 0) + duration, timeInterval: duration,
                                 average: Self.dBFS(rms), peak: Self.dBFS(Double(peak))))
        reset()
    }

    /// `20 log10(amplitude / 32768)`, never below `floor`.
    public static func dBFS(_ amplitude: Double) -> Double {
        amplitude > 0 ? max(floor, 20 * log10(amplitude / 32768)) : floor
    }
}
