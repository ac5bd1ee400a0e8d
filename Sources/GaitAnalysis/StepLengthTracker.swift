import RecorderModel

/// The length of each step as its contact is found: the pendulum model (`PendulumStepLength`)
/// over the samples from the previous contact to this one.
/// The lengths wait here, by the contact ending their step, until the bout rules confirm their
/// steps (`length(endingAt:)`). Pure.
struct StepLengthTracker: Sendable {
    /// How long an unclaimed length is kept, s (the bout rules confirm a run within seconds).
    static let keptFor = 60.0

    private var model: PendulumStepLength
    private let rules: WalkingBoutRules.Settings
    private var lastContact: Double?
    /// The length of the step ending at `lastContact`.
    private var lastLength: Double?
    private var lengths: [Double: Double] = [:]

    init(pendulumLength: Double, rate: Double, rules: WalkingBoutRules.Settings) {
        // Samples back to the previous contact, found up to 0.9 s late (the detector's latency).
        model = PendulumStepLength(pendulumLength: pendulumLength, rate: rate, seconds: rules.longestStep + 2)
        self.rules = rules
    }

    mutating func add(uptime: Double, vertical: Double) {
        model.add(uptime: uptime, vertical: vertical)
    }

    /// Samples were lost: no step across them is measured.
    mutating func reset() {
        model.reset()
        lastContact = nil
        lastLength = nil
    }

    /// A contact at `time`: measures the step ending at it; returns the stride ending at it (this
    /// step and the one before, both measured), m.
    mutating func contact(_ time: Double) -> Double? {
        defer { lastContact = time }
        guard let previous = lastContact else { return nil }
        let interval = time - previous
        guard interval >= rules.shortestStep, interval <= rules.longestStep, let h = model.excursion(from: previous, to: time) else {
            lastLength = nil
            return nil
        }
        let length = model.stepLength(excursion: h)
        lengths[time] = length
        if lengths.count > 64 { lengths = lengths.filter { $0.key >= time - Self.keptFor } }
        defer { lastLength = length }
        return lastLength.map { WalkingMeasures.millimetres($0 + length) }
    }

    /// The length (m) of the step ending at the contact `time`, once: nil when not measured.
    mutating func length(endingAt time: Double) -> Double? {
        lengths.removeValue(forKey: time)
    }
}
