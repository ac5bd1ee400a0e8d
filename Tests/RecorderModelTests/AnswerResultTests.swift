import Foundation
import RecorderJSON
import RecorderModel
import RecorderProtocol
import Testing

/// Answers sent with `step.finish`: what is accepted, and errors that name the JSON path.
@Suite("Answer results")
struct AnswerResultTests {
    func decode(_ results: String) throws -> StepParams {
        try JSONValueDecoder().decode(StepParams.self, from: Array("""
        {"taskRunUUID": "B047FEED-2823-49D0-872D-A97A01C3D16D", "stepPath": "t/q", "results": \(results)}
        """.utf8))
    }

    func problem(_ results: String) -> String {
        do {
            _ = try decode(results)
            return "accepted"
        } catch {
            return DecodingErrorDescription.describe(error, prefix: "params")
        }
    }

    @Test func everyAnswerTypeIsAcceptedWithItsValue() throws {
        let params = try decode("""
        [{"identifier": "name", "answerType": "string", "value": "Ada\\nLovelace"},
         {"identifier": "age", "answerType": "integer", "value": 9007199254740991, "unit": "a"},
         {"identifier": "weight", "answerType": "decimal", "value": 61.5, "unit": "kg"},
         {"identifier": "meds", "answerType": "boolean", "value": false},
         {"identifier": "day", "answerType": "date", "value": "2024-02-29"},
         {"identifier": "when", "answerType": "date", "value": "2026-11-23T09:30:00+01:00"},
         {"identifier": "mood", "answerType": "choice", "value": "LA6569-3", "system": "http://loinc.org", "display": "Several days"},
         {"identifier": "level", "answerType": "choice", "value": 2},
         {"identifier": "pain", "answerType": "scale", "value": 7}]
        """)
        let results = try #require(params.results)
        #expect(results.map(\.answerType) == [.string, .integer, .decimal, .boolean, .date, .date, .choice, .choice, .scale])
        #expect(results[1].value == .number(9_007_199_254_740_991) && results[6].system == "http://loinc.org")
        // Round trip through the manifest's encoder.
        let entry = StepHistoryEntry(stepPath: "t/q", startDate: Date(timeIntervalSince1970: 0), startUptime: 1, results: results)
        let again = try TaskResult.makeDecoder().decode(StepHistoryEntry.self, from: TaskResult.makeEncoder().encode(entry))
        #expect(again == entry)
    }

    @Test func badAnswersNameTheirPath() {
        let cases: [(String, String)] = [
            (#"[{"identifier": "a", "answerType": "integer", "value": 1.5}]"#, "params.results[0].value: expected an integer"),
            (#"[{"identifier": "a", "answerType": "integer", "value": 9007199254740992}]"#, "params.results[0].value: expected an integer of magnitude at most 2^53 - 1"),
            (#"[{"identifier": "a", "answerType": "integer", "value": 1e300}]"#, "params.results[0].value: expected an integer"),
            (#"[{"identifier": "a", "answerType": "boolean", "value": "yes"}]"#, "params.results[0].value: expected a boolean (answerType boolean), found a string"),
            (#"[{"identifier": "a", "answerType": "string", "value": 3}, {}]"#, "params.results[0].value: expected a string"),
            (#"[{"identifier": "ok", "answerType": "string", "value": "x"}, {"identifier": "b/c", "answerType": "string", "value": "x"}]"#,
             "params.results[1].identifier: expected 1 to 64 characters"),
            (#"[{"identifier": "a", "answerType": "date", "value": "2026-02-30"}]"#, "params.results[0].value: expected a date"),
            (#"[{"identifier": "a", "answerType": "date", "value": "2026-11-23T09:30:00"}]"#, "params.results[0].value: expected a date"),
            (#"[{"identifier": "a", "answerType": "choice", "value": ""}]"#, "params.results[0].value: expected a choice's value"),
            (#"[{"identifier": "a", "answerType": "choice", "value": null}]"#, "params.results[0].value: expected a string or a number (answerType choice), found null"),
            (#"[{"identifier": "a", "answerType": "colour", "value": "red"}]"#, "params.results[0].answerType: unknown answer type \"colour\""),
            (#"[{"identifier": "a", "answerType": "string", "value": "x", "unit": "kg"}]"#, "params.results[0].unit: a unit belongs to a number"),
            (#"[{"identifier": "a", "answerType": "integer", "value": 1, "system": "http://loinc.org"}]"#, "params.results[0].system: system and display belong to a choice"),
            (#"[{"identifier": "a", "answerType": "string", "value": "\u001b[2J"}]"#, "params.results[0].value: control character U+001B"),
            (#"[{"identifier": "a", "answerType": "string", "value": "x"}, {"identifier": "a", "answerType": "string", "value": "y"}]"#,
             "params.results: the identifier \"a\" is answered twice"),
            (#"[{"answerType": "string", "value": "x"}]"#, "params.results[0].identifier: required key is missing"),
            (#"{"identifier": "a"}"#, "params.results: expected an array"),
        ]
        for (results, expected) in cases {
            let found = problem(results)
            #expect(found.hasPrefix(expected), "\(results) -> \(found)")
        }
        let long = String(repeating: "x", count: AnswerResult.maximumStringLength + 1)
        #expect(problem(#"[{"identifier": "a", "answerType": "string", "value": "\#(long)"}]"#).contains("expected at most 8192 bytes"))
        let many = (0...AnswerResult.maximumCount).map { #"{"identifier": "a\#($0)", "answerType": "boolean", "value": true}"# }
        #expect(problem("[" + many.joined(separator: ",") + "]").hasPrefix("params.results: expected at most 256 answers"))
    }
}

/// Typed answers become `AnswerResult`s one way for every front end.
@Suite("Question input")
struct TaskQuestionInputTests {
    func answer(_ question: TaskQuestion, _ text: String) -> String {
        switch question.answer(from: text, identifier: "q") {
        case .success(let a?): return "\(a.value.plainText ?? "?")\(a.unit.map { " " + $0 } ?? "")\(a.system.map { " @" + $0 } ?? "")"
        case .success(nil): return "skipped"
        case .failure(let p): return "problem: \(p)"
        }
    }

    @Test func typedTextIsCheckedAgainstTheQuestion() throws {
        let pain = try JSONDecoder().decode(TaskQuestion.self, from: Data(#"{"answerType": "scale", "min": 0, "max": 10}"#.utf8))
        #expect(answer(pain, " 7 ") == "7")
        #expect(answer(pain, "11") == "problem: expected a number from 0 to 10")
        #expect(answer(pain, "6.5") == "problem: expected a whole number from 0 to 10")
        #expect(answer(pain, "seven") == "problem: expected a whole number from 0 to 10")
        #expect(answer(pain, "") == "problem: an answer is required")
        #expect(answer(pain, "inf") == "problem: expected a whole number from 0 to 10")
        let temperature = TaskQuestion(answerType: .decimal, min: 34, max: 43, unit: "Cel", optional: true)
        #expect(answer(temperature, "36.6") == "36.6 Cel" && answer(temperature, "") == "skipped" && answer(temperature, "nan").hasPrefix("problem"))
        let yes = TaskQuestion(answerType: .boolean)
        #expect(answer(yes, "Y") == "true" && answer(yes, "no") == "false" && answer(yes, "maybe") == "problem: expected yes or no")
        let day = TaskQuestion(answerType: .date)
        #expect(answer(day, "2024-02-29") == "2024-02-29" && answer(day, "2023-02-29") == "problem: expected a date as yyyy-MM-dd")
        let mood = try JSONDecoder().decode(TaskQuestion.self, from: Data("""
        {"answerType": "choice", "choices": ["calm", {"text": "Several days", "value": "LA6569-3", "system": "http://loinc.org"}, {"text": "Two", "value": 2}]}
        """.utf8))
        #expect(answer(mood, "1") == "calm" && answer(mood, "several days") == "LA6569-3 @http://loinc.org" && answer(mood, "3") == "2")
        #expect(answer(mood, "4") == "problem: expected the number of a choice (1 to 3)")
        #expect(answer(TaskQuestion(answerType: .string), "a\u{1B}b").hasPrefix("problem: control character"))
    }

    @Test func questionsThatCannotBeAskedAreRefused() {
        let cases: [(String, String)] = [
            (#"{"answerType": "choice"}"#, "choices: a choice question needs 1 to 100 choices"),
            (#"{"answerType": "choice", "choices": ["a", "a"]}"#, "choices: two choices have the same value"),
            (#"{"answerType": "boolean", "choices": ["a"]}"#, "choices: choices belong to a choice question"),
            (#"{"answerType": "scale", "min": 0}"#, "max: a scale needs min and max"),
            (#"{"answerType": "integer", "min": 5, "max": 1}"#, "max: expected max >= min (5)"),
            (#"{"answerType": "integer", "min": 0.5}"#, "min: the bounds of an integer question are whole numbers"),
            (#"{"answerType": "date", "unit": "d"}"#, "unit: min, max and unit belong to a number"),
            (#"{"answerType": "decimal", "max": 1e300}"#, "max: expected a bound >= -1000000000000000"),
        ]
        for (json, expected) in cases {
            do {
                _ = try JSONValueDecoder().decode(TaskQuestion.self, from: Array(json.utf8))
                Issue.record("\(json) accepted")
            } catch {
                let found = DecodingErrorDescription.describe(error)
                #expect(found.hasPrefix(expected), "\(json) -> \(found)")
            }
        }
    }
}

/// `enableWhen`: which steps a participant sees.
@Suite("Step conditions")
struct StepConditionTests {
    func condition(_ json: String) throws -> StepCondition {
        try JSONValueDecoder().decode(StepCondition.self, from: Array(json.utf8))
    }

    let answers: [String: AnswerResult] = [
        "meds": AnswerResult(identifier: "meds", answerType: .boolean, value: .bool(true)),
        "pain": AnswerResult(identifier: "pain", answerType: .scale, value: .number(6)),
        "mood": AnswerResult(identifier: "mood", answerType: .choice, value: .string("LA6569-3"), system: "http://loinc.org"),
        "dose": AnswerResult(identifier: "dose", answerType: .date, value: .string("2025-06-01")),
    ]

    @Test func operatorsCompareWithEarlierAnswers() throws {
        let truths: [(String, Bool)] = [
            (#"{"question": "meds", "operator": "=", "answer": true}"#, true),
            (#"{"question": "meds", "operator": "!=", "answer": true}"#, false),
            (#"{"question": "pain", "operator": ">=", "answer": 6}"#, true),
            (#"{"question": "pain", "operator": ">", "answer": 6}"#, false),
            (#"{"question": "pain", "operator": "<", "answer": 6.5}"#, true),
            (#"{"question": "pain", "operator": "<=", "answer": 5}"#, false),
            (#"{"question": "mood", "operator": "=", "answer": "LA6569-3", "system": "http://loinc.org"}"#, true),
            (#"{"question": "mood", "operator": "=", "answer": "LA6569-3", "system": "http://snomed.info/sct"}"#, false),
            (#"{"question": "mood", "operator": "!=", "answer": "LA6568-5"}"#, true),
            (#"{"question": "dose", "operator": "<", "answer": "2026-01-01"}"#, true),
            (#"{"question": "dose", "operator": ">", "answer": "2025-06-01T12:00:00Z"}"#, false),
            (#"{"question": "pain", "operator": "exists", "answer": true}"#, true),
            (#"{"question": "where", "operator": "exists", "answer": false}"#, true),
            (#"{"question": "where", "operator": "!=", "answer": "knee"}"#, false),
            (#"{"any": [{"question": "meds", "operator": "=", "answer": false}, {"question": "pain", "operator": ">", "answer": 5}]}"#, true),
            (#"{"all": [{"question": "meds", "operator": "=", "answer": false}, {"question": "pain", "operator": ">", "answer": 5}]}"#, false),
        ]
        for (json, expected) in truths {
            #expect(try condition(json).isMet(by: answers) == expected, "\(json)")
        }
    }

    @Test func conditionsOnLaterOrUnknownQuestionsAreRefused() throws {
        let task = """
        {"identifier": "t", "asyncActions": [], "steps": [
          {"identifier": "a", "question": {"answerType": "boolean"}, "enableWhen": [{"question": "b", "operator": "=", "answer": true}]},
          {"identifier": "b", "question": {"answerType": "boolean"}}]}
        """
        #expect(throws: ConfigurationError.self) { try TaskDefinition.decode(Data(task.utf8)) }
        do {
            _ = try TaskDefinition.decode(Data(task.utf8))
        } catch {
            #expect(error.message == #"steps[0].enableWhen: "b" is not a question asked before this step"#)
        }
        let twice = """
        {"identifier": "t", "asyncActions": [], "steps": [
          {"identifier": "x/a", "question": {"answerType": "boolean"}}, {"identifier": "y/a", "question": {"answerType": "boolean"}}]}
        """
        do {
            _ = try TaskDefinition.decode(Data(twice.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.message == #"steps[1].identifier: the answer identifier "a" is used by an earlier question"#)
        }
        #expect(throws: (any Error).self) { try condition(#"{"question": "a", "operator": "~", "answer": 1}"#) }
        #expect(throws: (any Error).self) { try condition(#"{"question": "a", "operator": ">", "answer": "high"}"#) }
        #expect(throws: (any Error).self) { try condition(#"{"question": "a", "operator": "exists", "answer": 1}"#) }
    }
}
