import FoundationEssentials
import Glibc
import RecorderModel

/// Sound levels of captured audio over consecutive windows of `interval` seconds of frames:
/// `average` is the RMS level and `peak` the largest magnitude, both in dBFS (full scale 32768),
/// over every sample of every channel in the window. A level's `uptime` is the end of its window.
public struct SoundLevelMeter: Sendable {
    /// The level of digital silence (RMS 0), as AVAudioRecorder reports it.
    public static let floor = -160.0

    public let interval: Double
    /// Exact: a window would need billions of full-scale samples to overflow.
    private var sumOfSquares: Int64 = 0
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
        let windowFrames = max(1, Int(saturating: (interval * Double(chunk.sampleRate)).rounded()))
        let channels = max(1, chunk.channels)
        chunk.samples.withUnsafeBufferPointer { samples in
            var frame = 0
            let total = chunk.frames
            while frame < total {
                if windowStart == nil { windowStart = chunk.uptime + Double(frame) / Double(chunk.sampleRate) }
                let take = min(windowFrames - frames, total - frame)
                let part = Self.measure(UnsafeBufferPointer(rebasing: samples[(frame * channels)..<((frame + take) * channels)]))
                sumOfSquares &+= part.sumOfSquares
                peak = max(peak, part.peak)
                frames += take
                frame += take
                if frames == windowFrames { emit(channels: channels, into: &levels) }
            }
        }
    }

    /// Sum of squares and largest magnitude of `samples`: eight samples at a time in SIMD lanes
    /// (the squares of neighbouring samples summed in 32 bits — at most 2 × 32768², which fits
    /// unsigned — then widened to 64), which LLVM lowers to `pmaddwd`/`pmaxsw` on x86 and
    /// `smull`/`smax` on ARM. This loop is the meter's whole per-sample cost.
    public static func measure(_ samples: UnsafeBufferPointer<Int16>) -> (sumOfSquares: Int64, peak: Int32) {
        guard let base = samples.baseAddress else { return (0, 0) }
        let raw = UnsafeRawPointer(base)
        let count = samples.count
        var even = SIMD2<UInt64>(repeating: 0)
        var odd = SIMD2<UInt64>(repeating: 0)
        var highest = SIMD8<Int16>(repeating: 0)
        var lowest = SIMD8<Int16>(repeating: 0)
        var i = 0
        while i + 8 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i * 2, as: SIMD8<Int16>.self)
            let wide = SIMD8<Int32>(truncatingIfNeeded: v)
            let squares = wide &* wide
            let pairs = SIMD4<UInt32>(truncatingIfNeeded: squares.evenHalf &+ squares.oddHalf)
            even &+= SIMD2<UInt64>(truncatingIfNeeded: pairs.evenHalf)
            odd &+= SIMD2<UInt64>(truncatingIfNeeded: pairs.oddHalf)
            highest = pointwiseMax(highest, v)
            lowest = pointwiseMin(lowest, v)
            i += 8
        }
        var sum = Int64(truncatingIfNeeded: even[0] &+ even[1] &+ odd[0] &+ odd[1])
        var peak = max(Int32(highest.max()), 0 &- Int32(lowest.min()))
        while i < count {
            let s = Int32(samples[i])
            sum &+= Int64(s &* s)
            peak = max(peak, s < 0 ? 0 &- s : s)
            i += 1
        }
        return (sum, peak)
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
        let rms = (Double(sumOfSquares) / Double(frames * channels)).squareRoot()
        levels.append(SoundLevel(uptime: (windowStart ?? 0) + duration, timeInterval: duration,
                                 average: Self.dBFS(rms), peak: Self.dBFS(Double(peak))))
        reset()
    }

    /// `20 log10(amplitude / 32768)`, never below `floor`.
    public static func dBFS(_ amplitude: Double) -> Double {
        amplitude > 0 ? max(floor, 20 * log10(amplitude / 32768)) : floor
    }
}
