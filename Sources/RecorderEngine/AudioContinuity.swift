import RecorderModel

/// Where a stream of audio chunks stands in time, for measuring lost audio in frames: chunks a
/// ring overwrote before a reader got them count as the time between the end of the last chunk
/// read and the next one, and a source's gap of `n` frames lasts `n / sampleRate` seconds.
/// Shared by recordings and live streams.
struct AudioContinuity {
    /// The rate of the chunks seen (0 before the first).
    private(set) var sampleRate = 0
    /// CLOCK_MONOTONIC seconds just after the last chunk seen.
    private(set) var expectedNext: Double?

    /// `expectedNext`: where the first chunk is expected (a recording's start), so that chunks a
    /// ring loses before the first one read are measured too.
    init(sampleRate: Int = 0, expectedNext: Double? = nil) {
        self.sampleRate = sampleRate
        self.expectedNext = expectedNext
    }

    /// Notes a chunk read.
    mutating func read(_ chunk: AudioChunk) {
        sampleRate = chunk.sampleRate
        expectedNext = chunk.uptime + chunk.duration
    }

    /// Frames and seconds lost before a frame at `uptime` when a ring lost chunks; nil before
    /// any chunk was read (the caller then counts what the ring counts).
    func lost(before uptime: Double) -> (frames: Int, duration: Double)? {
        guard let expectedNext, sampleRate > 0 else { return nil }
        let duration = max(0, uptime - expectedNext)
        return (Int(saturating: (duration * Double(sampleRate)).rounded()), duration)
    }

    /// Seconds that `frames` lost frames lasted; nil before the rate is known.
    func duration(ofFrames frames: Int) -> Double? {
        sampleRate > 0 ? Double(frames) / Double(sampleRate) : nil
    }
}
