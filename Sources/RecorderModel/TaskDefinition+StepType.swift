import RecorderJSON

extension TaskDefinition.Step {
    /// Step types that show their text and wait for the participant (`--auto`: pass at once),
    /// whatever `duration` they carry: no timer.
    public static let untimedTypes: Set<String> = ["instruction", "overview", "completion"]
    /// Step types with a timer: `countdown` (SageResearch's default of 5 s, always advancing by
    /// itself) and `active` (its `duration`; it advances by itself only with the
    /// `transitionAutomatically` or `continueOnFinish` command, else it waits when the timer ends).
    public static let timedTypes: Set<String> = ["countdown", "active"]
    /// The step types composition resolves away (`TaskComposer`); never a step of a definition.
    public static let compositionTypes: Set<String> = ["section", "transform"]
    /// A countdown step's seconds when its file gives none (SageResearch's `RSDCountdownUIStepObject`).
    public static let countdownDefaultSeconds = 5.0

    /// False for a `type` recorderd does not know: the step runs as an instruction (`recorderctl
    /// run --verbose` lists it).
    public var hasKnownType: Bool {
        guard let type, question == nil else { return true }
        return Self.untimedTypes.contains(type) || Self.timedTypes.contains(type)
    }

    /// Seconds the step's timer runs, nil when it has none. A step without `type` (recorderd's
    /// own task files) is timed by its `duration` alone, as before types were read.
    public var timerSeconds: Double? {
        let given = (duration ?? 0) > 0 ? duration : nil
        switch type {
        case nil, "active": return given
        case "countdown": return given ?? Self.countdownDefaultSeconds
        default: return nil
        }
    }

    /// Whether the step advances by itself when its timer ends; otherwise it waits for the
    /// participant (`--auto` passes at once).
    public var continuesOnFinish: Bool {
        guard type == "active" else { return true }
        let commands = Set(commands ?? [])
        return commands.contains("transitionAutomatically") || commands.contains("continueOnFinish")
    }

    /// Adds `condition` to the step's: it runs only when its own conditions and this one are met.
    public mutating func require(_ condition: StepCondition) {
        if let own = self.condition {
            enableWhen = [own, condition]
        } else {
            enableWhen = [condition]
        }
        enableBehavior = .all
    }

    /// The keys of a step of a task file.
    static func keys(question: ConfigurationKeys, condition: ConfigurationKeys) -> [String: ConfigurationKeys] {
        ["identifier": .any, "title": .any, "text": .any, "duration": .any, "type": .any, "commands": .any,
         "question": question, "enableWhen": .array(condition), "enableBehavior": .any]
    }
}
