import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel

/// Turns an HL7 FHIR R4 Questionnaire into a task definition the way ResearchKitOnFHIR maps one
/// to a ResearchKit task:
///
/// - `display` items become instruction steps (timed with the `step-duration` extension);
/// - `boolean`, `decimal`, `integer`, `date`, `dateTime`, `string`, `text` and `choice` items
///   become question steps (`required` false: optional; `minValue`/`maxValue`/`questionnaire-unit`
///   extensions: bounds and unit; an integer with the `slider` item control: a scale;
///   `answerOption` `valueCoding`, `valueString` or `valueInteger`: choices);
/// - a `group` is a section: its items in order, their step identifiers `<group>/<item>`, its
///   `enableWhen` applying to each of them;
/// - `enableWhen` (`exists`, `=`, `!=`, `>`, `<`, `>=`, `<=` on earlier answers) and
///   `enableBehavior` become the step's conditions;
/// - `async-action` extensions become the task's recorders.
///
/// The task's identifier is the Questionnaire's `id`, or the last path component of its `url`.
/// Other item types (`attachment`, `reference`, `quantity`…) are an error naming the linkId.
public enum QuestionnaireConverter {
    /// The item types a task can ask.
    public static let supportedTypes = ["group", "display", "boolean", "decimal", "integer", "date", "dateTime", "string", "text", "choice"]

    /// True when `value` is a FHIR resource of type Questionnaire.
    public static func isQuestionnaire(_ value: JSONValue) -> Bool {
        value["resourceType"]?.stringValue == "Questionnaire"
    }

    /// The task definition `questionnaire` describes.
    public static func taskDefinition(from questionnaire: JSONValue) throws(QuestionnaireError) -> TaskDefinition {
        guard isQuestionnaire(questionnaire) else {
            throw QuestionnaireError("resourceType: expected \"Questionnaire\", found \(questionnaire["resourceType"]?.plainText?.debugDescription ?? "none")")
        }
        let url = questionnaire["url"]?.stringValue
        let identifier: String
        if let id = questionnaire["id"]?.stringValue {
            identifier = id
        } else if let url, let last = url.split(separator: "/").last {
            identifier = String(last)
        } else {
            throw QuestionnaireError("the Questionnaire has neither an id nor a url to name the task")
        }
        guard RecorderIdentifier.isValid(identifier) else {
            throw QuestionnaireError("the task identifier \(identifier.debugDescription) (from \(questionnaire["id"] != nil ? "id" : "url")) is not \(RecorderIdentifier.expectation)")
        }
        var canonical: String?
        if let url {
            canonical = questionnaire["version"]?.stringValue.map { "\(url)|\($0)" } ?? url
            if let problem = CanonicalURL.problem(canonical!) { throw QuestionnaireError("url: \(problem)") }
        }
        var converter = Walk()
        converter.asyncActions = try Self.asyncActions(in: questionnaire, path: "extension", defaultStep: nil)
        try converter.items(questionnaire["item"], prefix: [], inherited: [], path: "item")
        let definition = TaskDefinition(identifier: identifier, steps: converter.steps, asyncActions: converter.asyncActions,
                                        questionnaire: canonical)
        if let problem = definition.stepsProblem() { throw QuestionnaireError(problem) }
        let recorders = definition.asyncActions.map(\.identifier)
        if Set(recorders).count != recorders.count { throw QuestionnaireError("two async-action extensions have the same identifier") }
        return definition
    }

    /// The async actions of the `async-action` extensions of `element`; a recorder without steps
    /// records during `defaultStep` when given.
    static func asyncActions(in element: JSONValue, path: String, defaultStep: String?) throws(QuestionnaireError) -> [AsyncActionConfiguration] {
        var actions: [AsyncActionConfiguration] = []
        for (i, ext) in (element["extension"]?.arrayValue ?? []).enumerated() where ext["url"]?.stringValue == FHIRExtensionURL.asyncAction {
            guard let text = ext["valueString"]?.stringValue else {
                throw QuestionnaireError("\(path)[\(i)]: the async-action extension needs a valueString holding the async action's JSON")
            }
            var action: AsyncActionConfiguration
            do {
                action = try JSONValueDecoder().decode(AsyncActionConfiguration.self, from: Array(text.utf8))
            } catch {
                throw QuestionnaireError("\(path)[\(i)].valueString: \(DecodingErrorDescription.describe(error))")
            }
            if let defaultStep, action.startStepIdentifier == nil, action.stopStepIdentifier == nil {
                action.startStepIdentifier = defaultStep
                action.stopStepIdentifier = defaultStep
            }
            actions.append(action)
        }
        return actions
    }

    /// The walk through the items, in order.
    struct Walk {
        var steps: [TaskDefinition.Step] = []
        var asyncActions: [AsyncActionConfiguration] = []
        /// The linkIds met so far, and the answer type of each question among them.
        var linkIds = Set<String>()
        var answerTypes: [String: AnswerType] = [:]

        mutating func items(_ items: JSONValue?, prefix: [String], inherited: [StepCondition], path: String) throws(QuestionnaireError) {
            guard let items else { return }
            guard case .array(let list) = items else { throw QuestionnaireError("\(path): expected an array of items") }
            for (i, item) in list.enumerated() {
                try self.item(item, prefix: prefix, inherited: inherited, path: "\(path)[\(i)]")
            }
        }

        mutating func item(_ item: JSONValue, prefix: [String], inherited: [StepCondition], path: String) throws(QuestionnaireError) {
            guard let linkId = item["linkId"]?.stringValue else { throw QuestionnaireError("\(path).linkId: required") }
            guard RecorderIdentifier.isValid(linkId) else {
                throw .item(linkId, "a linkId becomes a step identifier: \(RecorderIdentifier.expectation)")
            }
            guard linkIds.insert(linkId).inserted else { throw .item(linkId, "the linkId is used twice") }
            guard let type = item["type"]?.stringValue else { throw .item(linkId, "type is required") }
            guard QuestionnaireConverter.supportedTypes.contains(type) else {
                throw .item(linkId, "type \(type.debugDescription) is not supported; supported: \(QuestionnaireConverter.supportedTypes.joined(separator: ", "))")
            }
            if item["repeats"] == .bool(true), type != "group", type != "display" {
                throw .item(linkId, "repeating answers are not supported")
            }
            var conditions = inherited
            if let own = try condition(item, linkId: linkId) { conditions.append(own) }
            let identifier = (prefix + [linkId]).joined(separator: "/")
            let text = item["text"]?.stringValue
            if type == "group" {
                if let text {
                    // The section's heading, shown as it is entered.
                    steps.append(TaskDefinition.Step(identifier: identifier, title: text, enableWhen: conditions.isEmpty ? nil : conditions))
                }
                asyncActions += try QuestionnaireConverter.asyncActions(in: item, path: "\(path).extension", defaultStep: nil)
                try items(item["item"], prefix: prefix + [linkId], inherited: conditions, path: "\(path).item")
                return
            }
            if item["item"] != nil { throw .item(linkId, "only a group may have items") }
            var step = TaskDefinition.Step(identifier: identifier, title: text, enableWhen: conditions.isEmpty ? nil : conditions)
            if type == "display" {
                step.duration = try duration(item, linkId: linkId)
            } else {
                let question = try self.question(item, type: type, linkId: linkId)
                step.question = question
                answerTypes[linkId] = question.answerType
            }
            steps.append(step)
            asyncActions += try QuestionnaireConverter.asyncActions(in: item, path: "\(path).extension", defaultStep: linkId)
        }

        func duration(_ item: JSONValue, linkId: String) throws(QuestionnaireError) -> Double? {
            guard let ext = item.extensions(FHIRExtensionURL.stepDuration).first else { return nil }
            guard let seconds = (ext["valueDecimal"] ?? ext["valueInteger"])?.numberValue,
                  TaskDefinition.Step.durationRange.contains(seconds) else {
                throw .item(linkId, "step-duration: \(TaskDefinition.Step.durationRange)")
            }
            return seconds
        }

        func question(_ item: JSONValue, type: String, linkId: String) throws(QuestionnaireError) -> TaskQuestion {
            let required = item["required"] == .bool(true)
            var question: TaskQuestion
            switch type {
            case "boolean": question = TaskQuestion(answerType: .boolean)
            case "decimal": question = TaskQuestion(answerType: .decimal)
            case "integer": question = TaskQuestion(answerType: .integer)
            case "date", "dateTime": question = TaskQuestion(answerType: .date)
            case "string", "text": question = TaskQuestion(answerType: .string)
            default: question = TaskQuestion(answerType: .choice, choices: try choices(item, linkId: linkId))
            }
            question.optional = required ? nil : true
            if type == "integer" || type == "decimal" {
                question.min = try bound(item, FHIRExtensionURL.minValue, linkId: linkId)
                question.max = try bound(item, FHIRExtensionURL.maxValue, linkId: linkId)
                if let min = question.min, let max = question.max, min > max { throw .item(linkId, "minValue is above maxValue") }
                if let unit = item.extensions(FHIRExtensionURL.unit).first {
                    guard let code = unit["valueCoding"]?["code"]?.stringValue ?? unit["valueCoding"]?["display"]?.stringValue else {
                        throw .item(linkId, "questionnaire-unit: expected a valueCoding with a code")
                    }
                    question.unit = code
                }
                let controls = item.extensions(FHIRExtensionURL.itemControl).flatMap { $0["valueCodeableConcept"]?["coding"]?.arrayValue ?? [] }
                if type == "integer", controls.contains(where: { $0["code"]?.stringValue == "slider" }) {
                    guard question.min != nil, question.max != nil else { throw .item(linkId, "a slider needs minValue and maxValue") }
                    question.answerType = .scale
                }
            }
            // Checked as a task file's question is.
            if let problem = question.problemDescription { throw .item(linkId, problem) }
            return question
        }

        func bound(_ item: JSONValue, _ url: String, linkId: String) throws(QuestionnaireError) -> Double? {
            guard let ext = item.extensions(url).first else { return nil }
            guard let value = (ext["valueInteger"] ?? ext["valueDecimal"])?.numberValue, TaskQuestion.boundRange.contains(value) else {
                throw .item(linkId, "\(url.split(separator: "/").last ?? ""): expected valueInteger or valueDecimal, \(TaskQuestion.boundRange)")
            }
            return value
        }

        func choices(_ item: JSONValue, linkId: String) throws(QuestionnaireError) -> [TaskQuestion.Choice] {
            if item["answerValueSet"] != nil, item["answerOption"] == nil {
                throw .item(linkId, "answerValueSet is not supported (a task cannot expand a value set); list the answerOption")
            }
            guard let options = item["answerOption"]?.arrayValue, !options.isEmpty else { throw .item(linkId, "a choice needs answerOption") }
            var choices: [TaskQuestion.Choice] = []
            for (i, option) in options.enumerated() {
                if let coding = option["valueCoding"] {
                    guard let code = coding["code"]?.stringValue else { throw .item(linkId, "answerOption[\(i)].valueCoding: code is required") }
                    choices.append(TaskQuestion.Choice(text: coding["display"]?.stringValue ?? code, value: .string(code), system: coding["system"]?.stringValue))
                } else if let text = option["valueString"]?.stringValue {
                    choices.append(TaskQuestion.Choice(text: text, value: .string(text)))
                } else if let n = option["valueInteger"]?.numberValue {
                    choices.append(TaskQuestion.Choice(text: NumberRange.format(n), value: .number(n)))
                } else {
                    throw .item(linkId, "answerOption[\(i)]: expected valueCoding, valueString or valueInteger")
                }
            }
            return choices
        }

        /// The item's own enableWhen as one condition.
        func condition(_ item: JSONValue, linkId: String) throws(QuestionnaireError) -> StepCondition? {
            guard let list = item["enableWhen"]?.arrayValue, !list.isEmpty else { return nil }
            var conditions: [StepCondition] = []
            for (i, when) in list.enumerated() {
                let place = "enableWhen[\(i)]"
                guard let question = when["question"]?.stringValue else { throw .item(linkId, "\(place).question is required") }
                guard answerTypes[question] != nil else {
                    throw .item(linkId, "\(place): \(question.debugDescription) is not a question before this item")
                }
                guard let name = when["operator"]?.stringValue, let op = StepCondition.Operator(rawValue: name) else {
                    throw .item(linkId, "\(place).operator: expected one of \(StepCondition.Operator.allCases.map(\.rawValue).joined(separator: " "))")
                }
                var answer: JSONValue?
                var system: String?
                for key in ["answerBoolean", "answerDecimal", "answerInteger", "answerDate", "answerDateTime", "answerString"] where when[key] != nil {
                    answer = when[key]
                }
                if let coding = when["answerCoding"] {
                    answer = coding["code"]
                    system = coding["system"]?.stringValue
                }
                guard let answer else { throw .item(linkId, "\(place): an answer[x] is required") }
                if let problem = StepCondition.comparisonProblem(op, answer) { throw .item(linkId, "\(place).answer: \(problem)") }
                if let system, let problem = ControlCharacters.problem(in: system, place: "the code system") {
                    throw .item(linkId, "\(place).answerCoding.system: \(problem)")
                }
                conditions.append(.answer(question: question, operator: op, answer: answer, system: system))
            }
            if conditions.count == 1 { return conditions[0] }
            switch item["enableBehavior"]?.stringValue {
            case "all": return .all(conditions)
            case "any": return .any(conditions)
            default: throw .item(linkId, "enableBehavior (all or any) is required with more than one enableWhen")
            }
        }
    }
}

extension JSONValue {
    /// The members of `extension` with this URL.
    func extensions(_ url: String) -> [JSONValue] {
        (self["extension"]?.arrayValue ?? []).filter { $0["url"]?.stringValue == url }
    }
}
