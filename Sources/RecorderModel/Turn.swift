/// A turn about the vertical (see `GaitStepSummary`).
public struct Turn: Sendable, Equatable, Codable {
    /// Uptimes where the turn began and ended.
    public var start: Double
    public var end: Double
    /// Degrees turned, counter-clockwise seen from above positive.
    public var angle: Double
    /// Largest rate, degrees per second.
    public var peakRate: Double

    public init(start: Double, end: Double, angle: Double, peakRate: Double) {
        self.start = start
        self.end = end
        self.angle = angle
        self.peakRate = peakRate
    }
}
