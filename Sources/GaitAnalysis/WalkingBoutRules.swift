/// Which initial contacts are steps of walking: a walking bout begins with a run of at least
/// `minimumSteps` contacts whose intervals are step times (`shortestStep`…`longestStep`) and do
/// not change abruptly from one to the next (ratio at most `largestRatio`): the regularity that
/// tells walking from shuffling, turning on the spot or standing sway. Within a bout, a contact
/// too soon after the last step (a double detection) is not a step, and a break in the rhythm
/// does not end the bout when a new run of `continuingSteps` regular contacts begins within
/// `longestBreak` seconds of its last step — Mobilise-D's consensus definition (breaks up to 3 s
/// do not split a bout; Kluge et al., 2021), in a form that decides as each contact arrives. A
/// bout begins only after three strides (six regular contacts), not the consensus's two: here the
/// contacts alone must tell walking from the shuffling of daily living, where Mobilise-D's
/// pipeline has a gait-sequence detector before its contact detector (on HA/002's daily living,
/// two strides let in bouts with no reference contact: precision 0.45 where three give 0.56).
///
/// A state machine without I/O: feed contacts in time order with `add`; its actions say which
/// contacts became steps and when a bout started or ended. Contacts of a run that joins no bout
/// are never steps.
public struct WalkingBoutRules: Sendable {
    public struct Settings: Sendable, Equatable {
        public var minimumSteps = 6
        public var shortestStep = 0.25
        public var longestStep = 1.0
        public var largestRatio = 2.0
        /// The longest break within a bout, seconds (0: a break ends the bout).
        public var longestBreak = 3.0
        /// Regular contacts after a break that continue the bout.
        public var continuingSteps = 3

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
    /// True while the current run's contacts are steps of a bout.
    public private(set) var isWalking = false
    /// The bout under way (walking, or in a break that may still continue it).
    private var bout: (start: Double, end: Double, steps: Int)?

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// True while a bout is open: walking, or in a break that a new run may still join.
    public var hasOpenBout: Bool { bout != nil }

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
                // A double detection within a bout is not a step, and changes nothing.
                if isWalking, interval < settings.shortestStep { return [] }
                isWalking = false
                run = []
            }
        }
        run.append(time)
        // A bout ends when the run that could continue it began too long after its last step.
        if let open = bout, !isWalking, run[0] - open.end > settings.longestBreak {
            actions.append(.boutEnded(start: open.start, end: open.end, steps: open.steps))
            bout = nil
        }
        if isWalking {
            bout!.end = time
            bout!.steps += 1
            actions.append(.steps([time]))
        } else if let open = bout, run.count >= settings.continuingSteps {
            isWalking = true
            bout = (open.start, time, open.steps + run.count)
            actions.append(.steps(run))
        } else if bout == nil, run.count >= settings.minimumSteps {
            isWalking = true
            bout = (run[0], time, run.count)
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
            bout = nil
        }
        guard let open = bout else { return [] }
        return [.boutEnded(start: open.start, end: open.end, steps: open.steps)]
    }
}
