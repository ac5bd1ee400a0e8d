import RecorderModel

extension WalkingMeasures {
    /// The measures of bouts given as their steps' contact times (each in time order); the
    /// regularity measures are left to the caller. Cadence and step times count the intervals that
    /// are steps (at most `longestStep` seconds), not a bout's breaks.
    ///
    /// `lengths`, when the participant's height is known: for each bout, the length (m) of the
    /// step ending at each contact, nil where it was not measured (see `spatial`).
    public init(bouts stepsOfBouts: [[Double]], lengths: [[Double?]]? = nil,
                longestStep: Double = WalkingBoutRules.Settings().longestStep) {
        self.init()
        var intervals: [Double] = []
        // Each bout's spatial measures, computed once: its own and the step's sums.
        var measuredBouts: [(steps: [Double], lengths: [Double?], spatial: BoutSpatialMeasures)] = []
        for (b, steps) in stepsOfBouts.enumerated() where !steps.isEmpty {
            var bout = Bout(start: steps.first!, end: steps.last!, steps: steps.count)
            if let lengths, b < lengths.count, let spatial = Self.spatial(steps: steps, lengths: lengths[b]) {
                bout.distance = spatial.distance
                bout.walkingSpeed = spatial.walkingSpeed
                bout.strideLength = spatial.strideLength
                measuredBouts.append((steps, lengths[b], spatial))
            }
            bouts.append(bout)
            stepCount += steps.count
            walkingDuration += steps.last! - steps.first!
            for (a, b) in zip(steps, steps.dropFirst()) where b - a <= longestStep { intervals.append(b - a) }
        }
        addSpatial(measuredBouts)
        guard !intervals.isEmpty, walkingDuration > 0 else { return }
        let stepped = intervals.reduce(0, +)
        cadence = 60 * Double(intervals.count) / stepped
        stepTimeMean = stepped / Double(intervals.count)
        stepTimeCV = Self.coefficientOfVariation(intervals)
    }

    /// Standard deviation (n − 1) over mean; nil for fewer than two values or a zero mean.
    static func coefficientOfVariation(_ values: [Double]) -> Double? {
        guard values.count >= 2 else { return nil }
        let mean = values.reduce(0, +) / Double(values.count)
        guard mean != 0 else { return nil }
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)
        return variance.squareRoot() / mean
    }

    /// A bout's distance, speed and stride length from its contacts `steps` and the lengths of
    /// the steps ending at them (the first's began before the bout and is left out). Intervals
    /// without a length (a step too long or across lost samples) count as the mean step: a
    /// bout's pause is a slow step, not no distance. Nil when no step was measured. Rounded to
    /// millimetres.
    public static func spatial(steps: [Double], lengths: [Double?]) -> BoutSpatialMeasures? {
        guard steps.count >= 2, lengths.count == steps.count else { return nil }
        let measured = lengths.dropFirst().compactMap { $0 }
        guard !measured.isEmpty else { return nil }
        let meanStep = measured.reduce(0, +) / Double(measured.count)
        let distance = meanStep * Double(steps.count - 1)
        let duration = steps.last! - steps.first!
        return BoutSpatialMeasures(distance: millimetres(distance), walkingSpeed: duration > 0 ? millimetres(distance / duration) : nil,
                                   strideLength: millimetres(2 * meanStep))
    }

    /// The step's spatial measures over all its measured bouts (each with its own measures).
    private mutating func addSpatial(_ measuredBouts: [(steps: [Double], lengths: [Double?], spatial: BoutSpatialMeasures)]) {
        var total = 0.0
        var duration = 0.0
        var measured: [Double] = []
        var strides: [Double] = []
        for (steps, bout, spatial) in measuredBouts {
            total += spatial.distance
            duration += steps.last! - steps.first!
            let own = Array(bout.dropFirst())
            measured += own.compactMap { $0 }
            for (a, b) in zip(own, own.dropFirst()) {
                if let a, let b { strides.append(a + b) }
            }
        }
        guard !measured.isEmpty else { return }
        distance = Self.millimetres(total)
        if duration > 0 { walkingSpeed = Self.millimetres(total / duration) }
        strideLength = Self.millimetres(2 * measured.reduce(0, +) / Double(measured.count))
        strideLengthCV = Self.coefficientOfVariation(strides).map { ($0 * 1000).rounded() / 1000 }
    }

    static func millimetres(_ metres: Double) -> Double { (metres * 1000).rounded() / 1000 }
}
