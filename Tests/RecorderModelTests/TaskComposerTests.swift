import Foundation
import RecorderJSON
import RecorderModel
import Testing

/// SageResearch task composition (`TaskComposer`): sections at any depth, transform steps that
/// include section files, async actions scoped to their section, step types — and the errors of
/// bad input, each naming the file and the key's path.
@Suite("SageResearch task composition")
struct TaskComposerTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/sage-tasks").standardizedFileURL.path

    /// Composes `files[root]`, its includes read from `files` (names as the loader is asked).
    func compose(_ files: [String: String], root: String = "task.json") throws(ConfigurationError) -> TaskDefinition {
        let value: JSONValue
        do { value = try JSONParser.parse(Data(files[root]!.utf8)) } catch { throw ConfigurationError("\(error)") }
        return try TaskComposer.compose(value, file: root) { name, including throws(ConfigurationError) in
            guard let text = files[name] else { throw ConfigurationError("cannot read \(name) (included by \(including))") }
            do { return (try JSONParser.parse(Data(text.utf8)), name) } catch { throw ConfigurationError("\(name): \(error)") }
        }
    }

    /// A fixture file composed as `TaskFile` does: includes beside the including file.
    func composeFixture(_ name: String) throws -> TaskDefinition {
        let path = Self.directory + "/" + name
        let value = try JSONParser.parse(try Data(contentsOf: URL(fileURLWithPath: path)))
        return try TaskComposer.compose(value, file: path) { name, including throws(ConfigurationError) in
            let file = URL(fileURLWithPath: including).deletingLastPathComponent().appendingPathComponent(name).path
            guard let data = FileManager.default.contents(atPath: file) else { throw ConfigurationError("cannot read \(file) (included by \(including))") }
            do { return (try JSONParser.parse(data), file) } catch { throw ConfigurationError("\(file): \(error)") }
        }
    }

    @Test func theWalkAndBalanceTaskIncludesItsSectionsWithTheirOwnRecorders() throws {
        let task = try composeFixture("walk-and-balance.json")
        #expect(task.identifier == "walk-and-balance")
        #expect(task.sections == ["walk", "balance"])
        #expect(task.steps.map(\.identifier) == ["overview", "walk/instruction", "walk/countdown", "walk/motion",
                                                 "balance/instruction", "balance/countdown", "balance/motion", "completion"])
        // Two sections' `motion` recorders: files of their own, each over its own section's steps.
        #expect(task.asyncActions.map(\.identifier) == ["walk.motion", "balance.motion"])
        #expect(task.asyncActions.map(\.startStepIdentifier) == ["walk-and-balance/walk/countdown", "walk-and-balance/balance/motion"])
        #expect(task.asyncActions.map(\.stopStepIdentifier) == ["walk-and-balance/walk/motion", "walk-and-balance/balance/motion"])
        guard case .motion(let options) = task.asyncActions[0].options else { Issue.record("not motion"); return }
        #expect(options.recorderTypes == [.accelerometer, .gyro, .gravity, .userAcceleration, .attitude, .rotationRate])
        // The transform's own `steps` replace the included step's keys.
        let balance = try #require(task.steps.first { $0.identifier == "balance/motion" })
        #expect(balance.text == "Stand still with your arms at your sides." && balance.duration == 30)
        // Step types: the countdown's default 5 s, the walk's 30 s, advancing by itself;
        // overview and completion untimed.
        #expect(task.steps.map(\.timerSeconds) == [nil, nil, 5, 30, nil, 5, 30, nil])
        #expect(task.steps.allSatisfy(\.continuesOnFinish) && task.steps.allSatisfy(\.hasKnownType))
        #expect(task.sections(of: task.steps[3]) == ["walk"] && task.sections(of: task.steps[0]) == [])
    }

    @Test func oneSectionFileIncludedTwiceRecordsEachHandApart() throws {
        let task = try composeFixture("two-hands.json")
        #expect(task.sections == ["left", "right"])
        #expect(task.steps.map(\.identifier) == ["introduction", "left/instruction", "left/tremor", "right/instruction", "right/tremor", "completion"])
        // The task's recorder runs from the run's start to its finish; each hand's, without start
        // and stop steps, while its section runs.
        #expect(task.asyncActions.map(\.identifier) == ["everything", "left.tremor", "right.tremor"])
        #expect(task.asyncActions.map(\.startStepIdentifier) == [nil, "two-hands/left", "two-hands/right"])
        #expect(task.asyncActions.map(\.stopStepIdentifier) == [nil, "two-hands/left", "two-hands/right"])
    }

    @Test func sectionsNestAndTheirRecordersNameStepsInsideThem() throws {
        let task = try compose(["task.json": """
            {"identifier": "t", "steps": [
              {"identifier": "outer", "type": "section", "steps": [
                {"identifier": "a", "type": "instruction"},
                {"identifier": "inner", "type": "section", "steps": [{"identifier": "deep", "type": "active", "duration": 2}],
                 "asyncActions": [{"identifier": "m", "type": "motion"}]}],
               "asyncActions": [{"identifier": "m", "type": "motion", "startStepIdentifier": "deep", "stopStepIdentifier": "inner"}]}],
             "asyncActions": [{"identifier": "m", "type": "motion", "startStepIdentifier": "a"}]}
            """])
        #expect(task.sections == ["outer", "outer/inner"])
        #expect(task.steps.map(\.identifier) == ["outer/a", "outer/inner/deep"])
        #expect(task.asyncActions.map(\.identifier) == ["m", "outer.inner.m", "outer.m"])
        #expect(task.asyncActions.map(\.startStepIdentifier) == ["t/outer/a", "t/outer/inner", "t/outer/inner/deep"])
        #expect(task.asyncActions.map(\.stopStepIdentifier) == [nil, "t/outer/inner", "t/outer/inner"])
        // An active step without transitionAutomatically waits when its timer ends.
        #expect(task.steps[1].timerSeconds == 2 && !task.steps[1].continuesOnFinish)
        #expect(task.sections(of: task.steps[1]) == ["outer", "outer/inner"])
    }

    @Test func aTransformsAsyncActionsReplaceTheIncludedOnesOfTheSameIdentifier() throws {
        let task = try compose([
            "task.json": """
                {"identifier": "t", "steps": [{"identifier": "s", "type": "transform", "resourceTransformer": {"resourceName": "S"},
                  "asyncActions": [{"identifier": "m", "type": "motion", "frequency": 50}, {"identifier": "g", "type": "gait"}]}]}
                """,
            "S.json": """
                {"identifier": "section", "type": "section", "steps": [{"identifier": "x", "type": "instruction"}],
                 "asyncActions": [{"identifier": "m", "type": "motion", "frequency": 100}, {"identifier": "d", "type": "distance"}]}
                """])
        #expect(task.asyncActions.map(\.identifier) == ["s.d", "s.m", "s.g"])
        guard case .motion(let options) = task.asyncActions[1].options else { Issue.record("not motion"); return }
        #expect(options.frequency == 50)
    }

    /// MotorControl's tremor task: a hand-selection step, then the same section file as `left`
    /// and `right`. The answer decides which hands' sections run, and `both` their order.
    @Test func aHandSelectionDecidesWhichHandSectionsRun() throws {
        let task = try composeFixture("tremor.json")
        let ask = try #require(task.steps.first { $0.identifier == "handSelection" })
        #expect(ask.question?.choices?.map(\.value) == [.string("left"), .string("right"), .string("both")] && ask.hasKnownType)
        #expect(task.handSelections == [HandSelection(answerIdentifier: "handSelection", sections: [.left: "left", .right: "right"])])
        func runs(_ answer: String) -> [String] {
            let answers = ["handSelection": AnswerResult(identifier: "handSelection", answerType: .choice, value: .string(answer))]
            return task.steps.filter { $0.isEnabled(by: answers) }.map(\.identifier)
        }
        #expect(runs("left") == ["introduction", "handSelection", "sitDown", "left/instruction", "left/tremor", "completion"])
        #expect(runs("right") == ["introduction", "handSelection", "sitDown", "right/instruction", "right/tremor", "completion"])
        #expect(runs("both").count == 8)
        // The order: the file's, or the right hand's section first.
        let ids = { (order: [Int]) in order.map { task.steps[$0].identifier } }
        #expect(ids(task.stepOrder(hands: [:])) == task.steps.map(\.identifier))
        #expect(ids(task.stepOrder(hands: ["handSelection": [.right, .left]])) ==
                ["introduction", "handSelection", "sitDown", "right/instruction", "right/tremor", "left/instruction", "left/tremor", "completion"])
        #expect(HandSelection.hands(answer: .string("both"), order: nil, random: { false }) == [.right, .left])
        #expect(HandSelection.hands(answer: .string("both"), order: [.left, .right]) == [.left, .right])
        #expect(HandSelection.hands(answer: .string("left"), order: [.right, .left]) == [.left])
        #expect(HandSelection.hands(answer: .string("feet"), order: nil) == nil)
        #expect(HandSelection.order(from: "right, left") == [.right, .left] && HandSelection.order(from: "left,left") == nil && HandSelection.order(from: "left") == nil)
    }

    @Test func unknownStepTypesRunAsInstructions() throws {
        let task = try compose(["task.json": """
            {"identifier": "t", "steps": [{"identifier": "tap", "type": "tapping", "duration": 9}, {"identifier": "i", "type": "instruction", "duration": 9}]}
            """])
        #expect(task.steps.map(\.hasKnownType) == [false, true])
        #expect(task.steps.map(\.timerSeconds) == [nil, nil])
        #expect(task.asyncActions.isEmpty)
    }

    /// Bad input: a clear error naming the file and the key's path.
    @Test(arguments: [
        (["task.json": #"{"identifier": "t", "steps": [{"identifier": "s", "type": "transform", "resourceTransformer": {"resourceName": "Missing"}}]}"#],
         "steps[0].resourceTransformer.resourceName: cannot read Missing.json (included by task.json)"),
        (["task.json": #"{"identifier": "t", "steps": [{"identifier": "s", "type": "transform", "resourceTransformer": {"resourceName": "A"}}]}"#,
          "A.json": #"{"identifier": "a", "type": "section", "steps": [{"identifier": "b", "type": "transform", "resourceTransformer": {"resourceName": "B"}}]}"#,
          "B.json": #"{"identifier": "b", "type": "section", "steps": [{"identifier": "a", "type": "transform", "resourceTransformer": {"resourceName": "A.json"}}]}"#],
         "B.json (included from task.json ← A.json): steps[0].resourceTransformer.resourceName: A.json includes itself: task.json → A.json → B.json → A.json"),
        (["task.json": #"{"identifier": "t", "steps": [{"identifier": "s", "type": "section", "steps": [{"identifier": "x"}], "asyncActions": [{"identifier": "m", "type": "motion", "startStepIdentifier": "y"}]}, {"identifier": "y"}]}"#],
         "steps[0].asyncActions[0].startStepIdentifier: \"y\" names no step of section \"s\""),
        (["task.json": #"{"identifier": "t", "steps": [{"identifier": "s", "type": "section", "steps": [{"identifier": "x"}, {"identifier": "x"}]}]}"#],
         "steps[0].steps[1].identifier: \"x\" names two steps of section \"s\""),
        (["task.json": #"{"identifier": "t", "steps": [{"identifier": "a", "type": "section", "steps": [{"identifier": "m"}]}, {"identifier": "b", "type": "section", "steps": [{"identifier": "m"}]}], "asyncActions": [{"identifier": "r", "type": "motion", "startStepIdentifier": "m"}]}"#],
         "asyncActions[0].startStepIdentifier: \"m\" names 2 steps of the task: a/m, b/m"),
        (["task.json": #"{"identifier": "t", "steps": [{"identifier": "s", "type": "transform", "resourceTransformer": {"resourceName": "../etc/passwd"}}]}"#],
         "steps[0].resourceTransformer.resourceName: \"../etc/passwd\": a file beside the including one is named without / or a leading ."),
        (["task.json": #"{"identifier": "t", "steps": [{"identifier": "s", "type": "transform", "resourceTransformer": {"resourceName": "S"}}]}"#,
          "S.json": #"{"identifier": "x", "type": "section", "steps": [{"identifier": "c", "type": "countdown", "duration": "soon"}]}"#],
         "S.json (included from task.json): steps[0].duration: expected a number"),
        (["task.json": #"{"identifier": "t", "steps": [{"identifier": "a/b", "type": "section", "steps": []}]}"#],
         "steps[0].identifier: \"a/b\": a step identifier of a composed task holds no / (it joins the step path)"),
    ])
    func badInputIsRefusedNamingTheKey(files: [String: String], message: String) {
        #expect(throws: ConfigurationError(message)) { try compose(files) }
    }

    @Test func includesThatMultiplyAreBounded() {
        // Each level includes the next twice: 2^20 steps unless bounded.
        var files = ["task.json": #"{"identifier": "t", "steps": [{"identifier": "a", "type": "transform", "resourceTransformer": {"resourceName": "L1"}}]}"#]
        for level in 1...20 {
            files["L\(level).json"] = #"{"identifier": "x", "type": "section", "steps": [{"identifier": "p", "type": "transform", "resourceTransformer": {"resourceName": "L\#(level + 1)"}}, {"identifier": "q", "type": "transform", "resourceTransformer": {"resourceName": "L\#(level + 1)"}}]}"#
        }
        files["L21.json"] = #"{"identifier": "x", "type": "section", "steps": [{"identifier": "z"}]}"#
        #expect(throws: ConfigurationError.self) { try compose(files) }
    }

    /// recorderd's flat task files are not composed: they decode as before.
    @Test func flatTaskFilesAreNotComposed() throws {
        let flat = try JSONParser.parse(Data(#"{"identifier": "t", "steps": [{"identifier": "after/pain"}], "asyncActions": []}"#.utf8))
        #expect(!TaskComposer.isComposed(flat))
        let sage = try JSONParser.parse(Data(#"{"identifier": "t", "steps": [{"identifier": "s", "type": "instruction"}]}"#.utf8))
        #expect(TaskComposer.isComposed(sage))
    }

    /// SageResearch's own test and catalog files that are tasks compose; what runs as an
    /// instruction and why is listed (its form steps: recorderd asks its own questions only).
    @Test func sageResearchsOwnTaskFilesCompose() throws {
        let expected: [String: (steps: [String], unknown: [String], actions: [String])] = [
            "FactoryTest_TaskFoo.json": (["step1", "step2", "step3", "step4/step1", "step4/step2", "step5"], ["step3", "step5"], []),
            "Recorder_Motion.json": (["shaker/instruction", "shaker/countdown", "shaker/motion", "completion"], [], ["shaker.motion"]),
            "Recorder_Distance.json": (["run/instruction", "run/countdown", "run/walk", "completion"], [], ["run.location"]),
            "FormStep_List.json": (["selectOne", "selectMultiple"], ["selectOne", "selectMultiple"], []),
        ]
        for (name, want) in expected {
            let task = try composeFixture("sageresearch/" + name)
            #expect(task.steps.map(\.identifier).prefix(want.steps.count) == want.steps[...], "\(name)")
            #expect(task.steps.filter { !$0.hasKnownType }.map(\.identifier).prefix(want.unknown.count) == want.unknown[...], "\(name)")
            #expect(task.asyncActions.map(\.identifier) == want.actions, "\(name)")
        }
        let motion = try composeFixture("sageresearch/Recorder_Motion.json")
        #expect(motion.asyncActions[0].startStepIdentifier == "motion/shaker/countdown" && motion.asyncActions[0].stopStepIdentifier == "motion/shaker")
        // RSDTest's TaskFoo.json is not JSON: a comma after the last member of an object (line 47).
        #expect(throws: (any Error).self) { try composeFixture("sageresearch/TaskFoo.json") }
        // A task group is not a task: it has no steps.
        #expect(throws: ConfigurationError("steps: required key is missing")) { try composeFixture("sageresearch/FactoryTest_TaskGroup.json") }
    }
}
