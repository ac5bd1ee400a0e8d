import Foundation
import RecorderFHIR
import RecorderJSON
import RecorderModel
import RecorderTestSupport
import Testing

/// FHIR Questionnaires become task definitions as ResearchKitOnFHIR maps them.
@Suite("Questionnaire to task")
struct QuestionnaireConverterTests {
    static let directory = Fixtures.root + "/questionnaires"

    func load(_ name: String) throws -> JSONValue {
        try JSONParser.parse(try Data(contentsOf: URL(fileURLWithPath: "\(Self.directory)/\(name).json")))
    }

    func convert(_ json: String) -> String {
        do {
            _ = try QuestionnaireConverter.taskDefinition(from: JSONParser.parse(Array(json.utf8)))
            return "accepted"
        } catch let error as QuestionnaireError {
            return error.description
        } catch {
            return "\(error)"
        }
    }

    @Test func phq2BecomesCodedChoicesWithAnAnyCondition() throws {
        let task = try QuestionnaireConverter.taskDefinition(from: load("phq-2"))
        #expect(task.identifier == "phq-2" && task.questionnaire == "http://recorderd.example/fhir/Questionnaire/phq-2|1.0.0")
        #expect(task.steps.map(\.identifier) == ["intro", "interest", "down", "talk"])
        #expect(task.steps[0].question == nil && task.steps[0].title?.hasPrefix("Over the last 2 weeks") == true)
        let interest = try #require(task.steps[1].question)
        #expect(interest.answerType == .choice && interest.isOptional == false)
        #expect(interest.choices?.map(\.value) == [.string("LA6568-5"), .string("LA6569-3"), .string("LA6570-1"), .string("LA6571-9")])
        #expect(interest.choices?[1].text == "Several days" && interest.choices?[1].system == "http://loinc.org")
        #expect(task.steps[3].question?.answerType == .boolean && task.steps[3].question?.isOptional == true)
        // Shown when either answer is not "Not at all".
        let notAtAll = AnswerResult(identifier: "interest", answerType: .choice, value: .string("LA6568-5"), system: "http://loinc.org")
        let several = AnswerResult(identifier: "down", answerType: .choice, value: .string("LA6569-3"), system: "http://loinc.org")
        #expect(task.steps[3].isEnabled(by: ["interest": notAtAll, "down": several]))
        #expect(!task.steps[3].isEnabled(by: ["interest": notAtAll, "down": AnswerResult(identifier: "down", answerType: .choice, value: .string("LA6568-5"), system: "http://loinc.org")]))
    }

    @Test func groupsBecomeSectionsAndPassTheirConditionsOn() throws {
        let task = try QuestionnaireConverter.taskDefinition(from: load("medication-pain"))
        // No id: the last component of the url.
        #expect(task.identifier == "medication-pain" && task.questionnaire == "http://clinic.example/fhir/Questionnaire/medication-pain")
        #expect(task.steps.map(\.identifier) == ["before", "before/medication", "before/dose-date", "before/pain", "details/where",
                                                 "details/since", "details/since/since-date", "details/since/temperature", "steps-today"])
        let pain = try #require(task.steps[3].question)
        #expect(pain.answerType == .scale && pain.min == 0 && pain.max == 10)
        let temperature = try #require(task.steps[7].question)
        #expect(temperature.answerType == .decimal && temperature.unit == "Cel" && temperature.min == 34 && temperature.isOptional)
        func answer(_ id: String, _ type: AnswerType, _ value: JSONValue) -> (String, AnswerResult) {
            (id, AnswerResult(identifier: id, answerType: type, value: value))
        }
        let low = Dictionary(uniqueKeysWithValues: [answer("medication", .boolean, .bool(false)), answer("pain", .scale, .number(3))])
        // The group "details" (pain >= 5) and everything in it are skipped; steps-today is shown.
        #expect(task.steps.filter { $0.isEnabled(by: low) }.map(\.identifier) == ["before", "before/medication", "before/pain", "steps-today"])
        let high = Dictionary(uniqueKeysWithValues: [answer("medication", .boolean, .bool(true)), answer("dose-date", .date, .string("2025-06-01")),
                                                     answer("pain", .scale, .number(7)), answer("where", .string, .string("knee"))])
        #expect(task.steps.filter { $0.isEnabled(by: high) }.map(\.identifier)
                == ["before", "before/medication", "before/dose-date", "before/pain", "details/where", "details/since",
                    "details/since/since-date", "details/since/temperature"])
    }

    @Test func aGaitTaskCarriesItsRecordersAndTimedSteps() throws {
        let task = try QuestionnaireConverter.taskDefinition(from: load("gait-walk"))
        #expect(task.asyncActions.map(\.identifier) == ["motion"] && task.asyncActions[0].startStepIdentifier == "walk")
        #expect(task.steps[1].duration == 3 && task.steps[0].question?.choices?.map(\.text) == ["none", "cane", "walker"])
    }

    @Test func everyConvertedTaskIsATaskFile() throws {
        for name in ["phq-2", "medication-pain", "gait-walk"] {
            let task = try QuestionnaireConverter.taskDefinition(from: load(name))
            let again = try TaskDefinition.decode(try JSONEncoder().encode(task))
            #expect(again == task, "\(name)")
        }
    }

    @Test func unsupportedOrBrokenQuestionnairesNameTheItem() throws {
        #expect(throws: QuestionnaireError(#"item "photo": type "attachment" is not supported; supported: group, display, boolean, decimal, integer, date, dateTime, string, text, choice"#)) {
            try QuestionnaireConverter.taskDefinition(from: load("unsupported-attachment"))
        }
        let cases: [(String, String)] = [
            (#"{"resourceType": "Patient", "id": "x"}"#, #"resourceType: expected "Questionnaire", found "Patient""#),
            (#"{"resourceType": "Questionnaire", "item": []}"#, "the Questionnaire has neither an id nor a url to name the task"),
            (#"{"resourceType": "Questionnaire", "id": "a b"}"#, #"the task identifier "a b" (from id) is not 1 to 64"#),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "1/2", "type": "string"}]}"#, #"item "1/2": a linkId becomes a step identifier"#),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "a", "type": "string"}, {"linkId": "a", "type": "string"}]}"#, #"item "a": the linkId is used twice"#),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "a", "type": "string", "enableWhen": [{"question": "b", "operator": "exists", "answerBoolean": true}]}, {"linkId": "b", "type": "string"}]}"#,
             #"item "a": enableWhen[0]: "b" is not a question before this item"#),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "a", "type": "integer"}, {"linkId": "b", "type": "string", "enableWhen": [{"question": "a", "operator": "=", "answerInteger": 1}, {"question": "a", "operator": "=", "answerInteger": 2}]}]}"#,
             #"item "b": enableBehavior (all or any) is required with more than one enableWhen"#),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "a", "type": "integer"}, {"linkId": "b", "type": "string", "enableWhen": [{"question": "a", "operator": "~", "answerInteger": 1}]}]}"#,
             #"item "b": enableWhen[0].operator: expected one of exists = != > < >= <="#),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "c", "type": "choice"}]}"#, #"item "c": a choice needs answerOption"#),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "c", "type": "choice", "answerValueSet": "http://x"}]}"#, #"item "c": answerValueSet is not supported"#),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "c", "type": "string", "repeats": true}]}"#, #"item "c": repeating answers are not supported"#),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "n", "type": "integer", "extension": [{"url": "http://hl7.org/fhir/StructureDefinition/minValue", "valueInteger": 1e300}]}]}"#,
             #"item "n": minValue: expected valueInteger or valueDecimal"#),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "w", "type": "display", "extension": [{"url": "http://recorderd.example/fhir/StructureDefinition/step-duration", "valueDecimal": -1}]}]}"#,
             #"item "w": step-duration: expected seconds >= 0"#),
            (#"{"resourceType": "Questionnaire", "id": "q", "extension": [{"url": "http://recorderd.example/fhir/StructureDefinition/async-action", "valueString": "{\"identifier\": \"m\", \"type\": \"motion\", \"frequency\": -5}"}]}"#,
             "extension[0].valueString: frequency: expected"),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": "none"}"#, "item: expected an array of items"),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "c", "type": "choice", "answerOption": [{"valueCoding": {"code": ""}}]}]}"#,
             #"item "c": choices: expected a choice's value"#),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "c", "type": "choice", "answerOption": [{"valueString": "a\u001bb"}]}]}"#,
             #"item "c": choices: control character U+001B in the text"#),
            (#"{"resourceType": "Questionnaire", "id": "q", "item": [{"linkId": "a", "type": "string"}, {"linkId": "b", "type": "string", "enableWhen": [{"question": "a", "operator": ">", "answerString": "x"}]}]}"#,
             #"item "b": enableWhen[0].answer: operator > cannot compare with a string"#),
        ]
        for (json, expected) in cases {
            let found = convert(json)
            #expect(found.hasPrefix(expected), "\(json) -> \(found)")
        }
    }
}
