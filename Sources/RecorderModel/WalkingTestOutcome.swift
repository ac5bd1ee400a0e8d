import RecorderJSON

/// The clinical outcome of a `WalkingTest` over its step, in the step's `GaitStepSummary`
/// (`walkingTest`). What is missing says why in `note` (no height: no distance; no sit-to-stand
/// found: no Timed Up and Go time).
public struct WalkingTestOutcome: Sendable, Equatable, Codable {
    /// A phase of the Timed Up and Go, between two uptimes.
    public struct Phase: Sendable, Equatable, Codable {
        public enum Name: String, Sendable, Codable, CaseIterable {
            case sitToStand, walkOut, turn, walkBack, turnToSit, standToSit

            /// How people say it.
            public var words: String {
                switch self {
                case .sitToStand: "sit-to-stand"
                case .walkOut: "walk"
                case .turn: "turn"
                case .walkBack: "walk back"
                case .turnToSit: "turn to sit"
                case .standToSit: "stand-to-sit"
                }
            }
        }

        public var name: Name
        public var start: Double
        public var end: Double

        public init(name: Name, start: Double, end: Double) {
            self.name = name
            self.start = start
            self.end = end
        }
    }

    public var kind: WalkingTest.Kind
    /// Seconds: the six-minute walk's step, the time over the timed walk's distance, the Timed Up
    /// and Go's total (from the start of rising to the end of sitting down).
    public var duration: Double?
    /// Metres: the six-minute walk's distance, the timed walk's marked distance.
    public var distance: Double?
    /// Metres per second over `distance`.
    public var walkingSpeed: Double?
    /// The course the test was given (m).
    public var courseLength: Double?
    /// The six-minute walk in a corridor: the corridor's lengths completed (one per turn at its
    /// end), and the distance the steps alone measure (`distance` is the lengths' plus the
    /// steps' after the last turn).
    public var lengths: Int?
    public var stepDistance: Double?
    /// The Timed Up and Go's phases, in time order, each found once at most.
    public var phases: [Phase]?
    /// What could not be scored, and why.
    public var note: String?

    public init(kind: WalkingTest.Kind) {
        self.kind = kind
    }

    /// One line for people: "six-minute walk: 412 m (13 lengths of 30 m)",
    /// "timed walk: 10 m in 8.1 s (1.23 m/s)", "Timed Up and Go: 11.2 s (sit-to-stand 1.3 s, …)".
    public var headline: String {
        var s = kind.name + ": "
        switch kind {
        case .sixMinuteWalk:
            guard let distance else { return s + "no distance" + (note.map { " (\($0))" } ?? "") }
            s += Self.metres(distance) + " m"
            if let lengths, let courseLength {
                s += " (\(lengths) length\(lengths == 1 ? "" : "s") of \(Self.metres(courseLength)) m"
                if let stepDistance { s += "; " + Self.metres(stepDistance) + " m from the steps" }
                s += ")"
            }
        case .timedWalk:
            guard let duration, let distance else { return s + "not timed" + (note.map { " (\($0))" } ?? "") }
            s += Self.metres(distance) + " m in " + FixedDecimal.text(duration, decimals: 1) + " s"
            if let walkingSpeed { s += " (" + FixedDecimal.text(walkingSpeed, decimals: 2) + " m/s)" }
        case .timedUpAndGo:
            guard let duration else { return s + "not timed" + (note.map { " (\($0))" } ?? "") }
            s += FixedDecimal.text(duration, decimals: 1) + " s"
            if let phases, !phases.isEmpty {
                s += " (" + phases.map { "\($0.name.words) " + FixedDecimal.text($0.end - $0.start, decimals: 1) + " s" }.joined(separator: ", ") + ")"
            }
        }
        return s
    }

    /// Metres to a tenth, without a trailing ".0" ("30", "7.6").
    public static func metres(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(tenths / 10)) : FixedDecimal.text(value, decimals: 1)
    }
}
