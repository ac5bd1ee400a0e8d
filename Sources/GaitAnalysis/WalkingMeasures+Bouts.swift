import RecorderModel

extension WalkingMeasures {
    /// The measures of bouts given as their steps' contact times (each in time order); the
    /// regularity measures are left to the caller.
    public init(bouts stepsOfBouts: [[Double]]) {
        self.init()
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
