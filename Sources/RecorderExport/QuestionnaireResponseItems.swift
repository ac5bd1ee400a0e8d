import RecorderModel

/// The nested items of a QuestionnaireResponse: groups (a step path's components) in the order
/// first met, answers under them.
struct QuestionnaireResponseItems {
    final class Node {
        let linkId: String
        var answer: AnswerResult?
        var children = QuestionnaireResponseItems()
        init(linkId: String) { self.linkId = linkId }
    }

    private(set) var nodes: [Node] = []

    mutating func insert(_ answer: AnswerResult, under groups: [String]) {
        guard let first = groups.first else {
            let node = Node(linkId: answer.identifier)
            node.answer = answer
            nodes.append(node)
            return
        }
        let group: Node
        if let existing = nodes.last(where: { $0.linkId == first && $0.answer == nil }) {
            group = existing
        } else {
            group = Node(linkId: first)
            nodes.append(group)
        }
        group.children.insert(answer, under: Array(groups.dropFirst()))
    }

    var json: FHIRJSON {
        .array(nodes.map { node in
            if let answer = node.answer {
                return .object([("linkId", .string(node.linkId)), ("answer", .array([.object([Self.value(answer)])]))])
            }
            return .object([("linkId", .string(node.linkId)), ("item", node.children.json)])
        })
    }

    /// FHIR's `value[x]` of an answer.
    static func value(_ answer: AnswerResult) -> (String, FHIRJSON) {
        func number(_ n: Double) -> (String, FHIRJSON) {
            // FHIR integers are 32-bit; larger whole numbers are decimals.
            if n.rounded() == n, abs(n) <= Double(Int32.max) { return ("valueInteger", .integer(Int(n))) }
            return ("valueDecimal", .number(n))
        }
        switch (answer.answerType, answer.value) {
        case (.string, .string(let s)): return ("valueString", .string(s))
        case (.boolean, .bool(let b)): return ("valueBoolean", .bool(b))
        case (.date, .string(let s)): return (AnswerDate(s)?.hasTime == true ? "valueDateTime" : "valueDate", .string(s))
        case (.decimal, .number(let n)): return ("valueDecimal", .number(n))
        case (.integer, .number(let n)), (.scale, .number(let n)): return number(n)
        case (.choice, .string(let code)):
            guard let system = answer.system else { return ("valueString", .string(code)) }
            return ("valueCoding", FHIRJSON.members([("system", .string(system)), ("code", .string(code)),
                                                     ("display", answer.display.map { .string($0) })]))
        case (.choice, .number(let n)): return number(n)
        default: return ("valueString", .string(answer.value.plainText ?? ""))
        }
    }
}
