/// Audio lost within a recording (ring overflow, capture overrun, a device outage), as the WAV's
/// file result lists it: the WAV holds `frameCount` frames of silence from frame `frame` on, so
/// its timeline stays that of the wall clock, and the levels file has a gap record at `uptime`.
public struct AudioGap: Sendable, Equatable, Codable {
    /// CLOCK_MONOTONIC seconds of the first frame after the gap (the levels file's gap record).
    public var uptime: Double
    /// The first silent frame in the WAV (0 = the first frame of the file).
    public var frame: Int
    /// Silent frames written for the lost audio.
    public var frameCount: Int

    public init(uptime: Double, frame: Int, frameCount: Int) {
        self.uptime = uptime
        self.frame = frame
        self.frameCount = frameCount
    }
}
