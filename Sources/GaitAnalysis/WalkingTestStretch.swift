import RecorderModel

/// What a walking test is scored from: its step's stretch of the recording as the gait analysis
/// found it.
struct WalkingTestStretch {
    /// The stretch's first and last sample's uptimes.
    var start: Double
    var end: Double
    /// The walking steps of each bout in the stretch (contact uptimes, in time order) and the
    /// lengths of the steps ending at them (m; nil where not measured, or no height).
    var bouts: [(steps: [Double], lengths: [Double?])]
    var turns: [Turn]
    /// The stretch's walking measures (nil: no walking).
    var walking: WalkingMeasures?
    /// Whether step lengths are measured (the participant's height is known).
    var measuresLength: Bool
}

extension WalkingTestStretch {
    /// The mean measured step length of the stretch (m), nil when none was measured.
    var meanStepLength: Double? {
        let measured = bouts.flatMap { $0.lengths.dropFirst().compactMap { $0 } }
        return measured.isEmpty ? nil : measured.reduce(0, +) / Double(measured.count)
    }

    /// Metres walked in the bouts' steps after `time` (each step's interval ends at a contact;
    /// an unmeasured step counts as the mean step).
    func distance(after time: Double) -> Double {
        guard let mean = meanStepLength else { return 0 }
        var total = 0.0
        for bout in bouts {
            for i in bout.steps.indices.dropFirst() where bout.steps[i - 1] >= time {
                total += bout.lengths[i] ?? mean
            }
        }
        return total
    }
}
