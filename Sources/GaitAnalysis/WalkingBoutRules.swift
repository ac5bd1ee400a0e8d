/// Which initial contacts are steps of walking: a walking bout is a run of at least
/// `minimumSteps` contacts whose intervals are step times (`shortestStep`…`longestStep`) and do
/// not change abruptly from one to the next (ratio at most `largestRatio`): the regularity that
/// tells walking from shuffling, turning on the spot or standing sway. (The bout definition of
/// Mobilise-D's consensus — at least two consecutive strides, breaks ending a bout — in a form
/// that decides as each contact arrives.)
///
/// A state machine without I/O: feed contacts in time order with `add`; its actions say which
/// contacts became steps and when a bout started or ended. Contacts of a run that does not reach
/// `minimumSteps` are never steps.
public struct WalkingBoutRules: Sendable {
    public struct Settings: Sendable, Equatable {
        public var minimumSteps = 4
        public var shortestStep = 0.25
        public var longestStep = 1.0
        public var largestRatio = 2.0

        public init() {}
    }

    /// What one contact led to.
    public enum Action: Sendable, Equatable {
        /// A walking bout began at `start` (its first contact).
        case boutStarted(start: Double)
        /// These contacts are steps (the run's first ones at once when it qualifies, then each).
        case steps([Double])
        /// The bout ended with its last step at `end`: `steps` in it.
        case boutEnded(start: Double, end: Double, steps: Int)
    }

    public let settings: Settings
    /// The current run of regular contacts.
    public private(set) var run: [Double] = []
    public private(set) var isWalking = false

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// One contact at `time` seconds.
    public mutating func add(_ time: Double) -> [Action] {
        var actions: [Action] = []
        if let last = run.last {
            let interval = time - last
            var regular = interval >= settings.shortestStep && interval <= settings.longestStep
            if regular, run.count >= 2 {
                let ratio = interval / (last - run[run.count - 2])
                regular = ratio <= settings.largestRatio && ratio >= 1 / settings.largestRatio
            }
            if !regular {
                actions += finish()
                run = []
            }
        }
        run.append(time)
        if isWalking {
            actions.append(.steps([time]))
        } else if run.count >= settings.minimumSteps {
            isWalking = true
            actions.append(.boutStarted(start: run[0]))
            actions.append(.steps(run))
        }
        return actions
    }

    /// Ends the current bout, if any (the recording stopped, a gap).
    public mutating func finish() -> [Action] {
        defer {
            isWalking = false
            run = []
        }
        guard isWalking, let first = run.first, let last = run.last else { return [] }
        return [.boutEnded(start: first, end: last, steps: run.count)]
    }
}
