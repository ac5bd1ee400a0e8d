import Foundation

/// The walking measures of one stretch of a recording (a step path): what the task runner learns
/// the moment the walking step ends. Built from the walking bouts' steps as they are found.
public struct WalkingSummary: Sendable, Equatable, Codable {
    /// One walking bout: its first and last contact (uptimes) and its steps.
    public struct Bout: Sendable, Equatable, Codable {
        public var start: Double
        public var end: Double
        public var steps: Int

        public init(start: Double, end: Double, steps: Int) {
            self.start = start
            self.end = end
            self.steps = steps
        }
    }

    public var stepCount = 0
    /// Steps per minute over the bouts: 60 × (intervals stepped) / (time they took).
    public var cadence: Double?
    /// Seconds from each bout's first contact to its last, summed.
    public var walkingDuration = 0.0
    public var bouts: [Bout] = []
    /// Mean and coefficient of variation (standard deviation / mean) of the step times within
    /// bouts, seconds.
    public var stepTimeMean: Double?
    public var stepTimeCV: Double?

    public init() {}

    /// The summary of bouts given as their steps' contact times (each in time order).
    public init(bouts stepsOfBouts: [[Double]]) {
        var intervals: [Double] = []
        for steps in stepsOfBouts where !steps.isEmpty {
            bouts.append(Bout(start: steps.first!, end: steps.last!, steps: steps.count))
            stepCount += steps.count
            walkingDuration += steps.last! - steps.first!
            for (a, b) in zip(steps, steps.dropFirst()) { intervals.append(b - a) }
        }
        guard !intervals.isEmpty, walkingDuration > 0 else { return }
        cadence = 60 * Double(intervals.count) / walkingDuration
        let mean = intervals.reduce(0, +) / Double(intervals.count)
        stepTimeMean = mean
        if intervals.count >= 2 {
            let variance = intervals.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(intervals.count - 1)
            stepTimeCV = variance.squareRoot() / mean
        }
    }
}
