import RecorderModel

extension WalkingMeasures {
    /// The measures of bouts given as their steps' contact times (each in time order); the
    /// regularity measures are left to the caller. Cadence and step times count the intervals that
    /// are steps (at most `longestStep` seconds), not a bout's breaks.
    public init(bouts stepsOfBouts: [[Double]], longestStep: Double = WalkingBoutRules.Settings().longestStep) {
        self.init()
        var intervals: [Double] = []
        for steps in stepsOfBouts where !steps.isEmpty {
            bouts.append(Bout(start: steps.first!, end: steps.last!, steps: steps.count))
            stepCount += steps.count
            walkingDuration += steps.last! - steps.first!
            for (a, b) in zip(steps, steps.dropFirst()) where b - a <= longestStep { intervals.append(b - a) }
        }
        guard !intervals.isEmpty, walkingDuration > 0 else { return }
        let stepped = intervals.reduce(0, +)
        cadence = 60 * Double(intervals.count) / stepped
        let mean = stepped / Double(intervals.count)
        stepTimeMean = mean
        if intervals.count >= 2 {
            let variance = intervals.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(intervals.count - 1)
            stepTimeCV = variance.squareRoot() / mean
        }
    }
}
