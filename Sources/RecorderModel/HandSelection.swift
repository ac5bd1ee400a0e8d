import RecorderJSON

/// SageResearch's hand selection (MotorControl's `handSelection` step): a question — left, right
/// or both — whose answer decides which of the hand sections that follow it at its level run,
/// the sections identified `left` and `right` (one section file is usually included twice).
/// `left` or `right` runs that hand's section alone; `both` runs the two in a random order, as
/// MotorControl does (its `handOrder`), or in the order given (`recorderctl run --answer
/// handOrder=right,left`).
public struct HandSelection: Sendable, Equatable {
    /// The step type that asks.
    public static let stepType = "handSelection"
    /// The answer identifier of a preset hand order (MotorControl's `handOrderKey`).
    public static let orderIdentifier = "handOrder"
    /// The answer that runs both hands.
    public static let both = "both"

    /// A hand.
    public enum Hand: String, Sendable, Equatable, CaseIterable { case left, right }

    /// The identifier of the step's answer.
    public var answerIdentifier: String
    /// The hand sections the file has after the step, as paths relative to the task.
    public var sections: [Hand: String]

    public init(answerIdentifier: String, sections: [Hand: String]) {
        self.answerIdentifier = answerIdentifier
        self.sections = sections
    }

    /// The question a hand-selection step asks when its file gives none.
    public static let question = TaskQuestion(answerType: .choice, choices: [
        .init(text: "Left hand", value: .string(Hand.left.rawValue)),
        .init(text: "Right hand", value: .string(Hand.right.rawValue)),
        .init(text: "Both hands", value: .string(both)),
    ])

    /// The condition under which `hand`'s section runs: the answer is that hand or both.
    public func condition(for hand: Hand) -> StepCondition {
        .any([.answer(question: answerIdentifier, operator: .equal, answer: .string(hand.rawValue), system: nil),
              .answer(question: answerIdentifier, operator: .equal, answer: .string(Self.both), system: nil)])
    }

    /// The hands that run for `answer`, in their order: one hand alone; both in `order`, else at
    /// random. Nil for an answer that is no hand selection.
    public static func hands(answer: JSONValue, order: [Hand]?, random: () -> Bool = { Bool.random() }) -> [Hand]? {
        switch answer.stringValue {
        case Hand.left.rawValue?: return [.left]
        case Hand.right.rawValue?: return [.right]
        case both?: return order ?? (random() ? [.left, .right] : [.right, .left])
        default: return nil
        }
    }

    /// A hand order as typed (`left,right` or `right,left`), or nil.
    public static func order(from text: String) -> [Hand]? {
        let hands = text.split(separator: ",").map { Hand(rawValue: $0.trimmingWhitespace()) }
        guard hands.count == 2, let first = hands[0], let second = hands[1], first != second else { return nil }
        return [first, second]
    }
}

extension TaskDefinition {
    /// The order its steps run in, given the hand order chosen for each hand selection answered
    /// so far (by answer identifier): a selection's right-hand section before its left when its
    /// order says so; every other step where the file has it.
    public func stepOrder(hands: [String: [HandSelection.Hand]]) -> [Int] {
        var order = Array(steps.indices)
        for selection in handSelections {
            guard hands[selection.answerIdentifier] == [.right, .left],
                  let left = selection.sections[.left], let right = selection.sections[.right] else { continue }
            let inLeft = order.filter { steps[$0].identifier.hasPrefix(left + "/") }
            let inRight = order.filter { steps[$0].identifier.hasPrefix(right + "/") }
            guard let firstLeft = inLeft.first.flatMap({ order.firstIndex(of: $0) }),
                  let firstRight = inRight.first.flatMap({ order.firstIndex(of: $0) }), firstLeft < firstRight else { continue }
            let blocks = Set(inLeft + inRight)
            var reordered = Array(order[..<firstLeft])
            reordered += inRight
            reordered += order[firstLeft...].filter { !blocks.contains($0) && order.firstIndex(of: $0)! < firstRight }
            reordered += inLeft
            reordered += order[firstLeft...].filter { !blocks.contains($0) && order.firstIndex(of: $0)! > firstRight }
            order = reordered
        }
        return order
    }
}
