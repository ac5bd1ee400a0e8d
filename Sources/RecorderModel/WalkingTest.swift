import RecorderJSON

/// A clinical walking test a `gait` action scores over one step of its task (`stepIdentifier`):
/// the step's stretch of the recording gets a `WalkingTestOutcome` in its summary.
///
/// In a task file: `"walkingTest": {"kind": "sixMinuteWalk", "stepIdentifier": "walk",
/// "courseLength": 30}` in the gait action.
public struct WalkingTest: Sendable, Equatable {
    /// Which test.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// Six-minute walk test (ATS 2002): the distance walked in six minutes, in a corridor of
        /// `courseLength` metres with its lengths counted from the turns at its ends.
        case sixMinuteWalk
        /// Timed walk over a marked distance (`courseLength`, default 10 m; 7.62 m for the
        /// 25-foot walk): the time and speed over it.
        case timedWalk
        /// Timed Up and Go (Podsiadlo & Richardson 1991): rise from a chair, walk to a line 3 m
        /// away, turn, walk back, sit down; its total time and phases.
        case timedUpAndGo

        /// How people say it.
        public var name: String {
            switch self {
            case .sixMinuteWalk: "six-minute walk"
            case .timedWalk: "timed walk"
            case .timedUpAndGo: "Timed Up and Go"
            }
        }
    }

    public var kind: Kind
    /// The task step (its identifier, the last part of its step path) the test is scored over.
    public var stepIdentifier: String
    /// Metres: the six-minute walk's corridor (nil: distance from the steps alone), the timed
    /// walk's marked distance (nil: 10 m), the Timed Up and Go's line (nil: 3 m, not used in
    /// its scoring).
    public var courseLength: Double?

    /// The course lengths accepted, m.
    public static let courseLengthRange = NumberRange(atLeast: 1, atMost: 1000, "a length in metres")
    /// The timed walk's distance when the task does not give one (the 10-metre walk test).
    public static let defaultTimedDistance = 10.0

    public init(kind: Kind, stepIdentifier: String, courseLength: Double? = nil) {
        self.kind = kind
        self.stepIdentifier = stepIdentifier
        self.courseLength = courseLength
    }

    /// True when the step path `stepPath` is the test's step: its last component is the test's
    /// identifier ("tug/walk" for "walk"), as a recorder's start and stop steps match.
    public func isScored(stepPath: String) -> Bool {
        StepPath.identifier(of: stepPath) == stepIdentifier
    }
}

extension WalkingTest: Codable {
    enum CodingKeys: String, CodingKey {
        case kind, stepIdentifier, courseLength
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .kind)
        guard let kind = Kind(rawValue: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: c,
                debugDescription: "unknown walking test \(name.debugDescription): expected one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.kind = kind
        guard let step = try c.decodeIfPresent(String.self, forKey: .stepIdentifier, bytes: 1...StepPath.maximumLength,
                                               expected: "a step identifier") else {
            throw DecodingError.keyNotFound(CodingKeys.stepIdentifier, .init(codingPath: c.codingPath, debugDescription: "expected the step the test is scored over"))
        }
        stepIdentifier = step
        courseLength = try c.decodeIfPresent(Double.self, forKey: .courseLength, in: Self.courseLengthRange)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind.rawValue, forKey: .kind)
        try c.encode(stepIdentifier, forKey: .stepIdentifier)
        try c.encodeIfPresent(courseLength, forKey: .courseLength)
    }
}
