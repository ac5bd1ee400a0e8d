import Foundation
import RecorderEngine
import RecorderModel
import RecorderTestSupport
import Testing

@Suite("Start/stop rules")
struct TaskRunRulesTests {
    typealias A = TaskRunRules.Action

    func rules() -> TaskRunRules {
        TaskRunRules(taskIdentifier: "walk", recorders: [
            ("always", nil, nil),
            ("motion", "walking.outbound", "walking.rest"),
            ("location", "walking.outbound", "walking.return"),
            ("rest", "walking.rest", nil),
        ])
    }

    @Test func recordersFollowTheirSteps() throws {
        var r = rules()
        #expect(r.startTask() == [.startRecorder("always")])
        #expect(r.currentStepPath == "walk")
        #expect(try r.startStep("walk/instruction") == [.changeStep("walk/instruction")])
        #expect(try r.finishStep("walk/instruction") == [.changeStep("walk")])
        #expect(try r.startStep("walk/walking.outbound") == [.changeStep("walk/walking.outbound"), .startRecorder("motion"), .startRecorder("location")])
        #expect(try r.finishStep("walk/walking.outbound") == [.changeStep("walk")])
        #expect(try r.startStep("walk/walking.return") == [.changeStep("walk/walking.return")])
        #expect(try r.finishStep("walk/walking.return") == [.stopRecorder("location"), .changeStep("walk")])
        #expect(try r.startStep("walk/walking.rest") == [.changeStep("walk/walking.rest"), .startRecorder("rest")])
        #expect(r.recordingIdentifiers == ["always", "motion", "rest"])
        #expect(try r.finishStep("walk/walking.rest") == [.stopRecorder("motion"), .changeStep("walk")])
        #expect(r.finishTask() == [.stopRecorder("always"), .stopRecorder("rest")])
        #expect(r.recordingIdentifiers.isEmpty)
    }

    @Test func identifierMatchesTheLastPathComponentOnly() throws {
        var r = TaskRunRules(taskIdentifier: "t", recorders: [("m", "walking", nil)])
        _ = r.startTask()
        #expect(try r.startStep("walking/outbound") == [.changeStep("walking/outbound")])
        #expect(try r.startStep("section/walking") == [.changeStep("section/walking"), .startRecorder("m")])
        #expect(TaskRunRules.stepIdentifier(of: "a/b/c") == "c")
        #expect(TaskRunRules.stepIdentifier(of: "c") == "c")
    }

    @Test func aRecorderStartsOnceAndANeverStartedOneNeverStops() throws {
        var r = TaskRunRules(taskIdentifier: "t", recorders: [("m", "a", "a"), ("late", "never", nil)])
        _ = r.startTask()
        #expect(try r.startStep("t/a") == [.changeStep("t/a"), .startRecorder("m")])
        #expect(try r.finishStep("t/a") == [.stopRecorder("m"), .changeStep("t")])
        #expect(try r.startStep("t/a") == [.changeStep("t/a")])
        #expect(r.pendingIdentifiers == ["late"])
        #expect(r.finishTask() == [])
    }

    @Test func stepOrderErrors() throws {
        var r = rules()
        _ = r.startTask()
        #expect(throws: TaskRunRules.StepOrderError.self) { try r.finishStep("walk/instruction") }
        _ = try r.startStep("walk/section")
        _ = try r.startStep("walk/section/inner")
        #expect(throws: TaskRunRules.StepOrderError.self) { try r.startStep("walk/section") }
        #expect(throws: TaskRunRules.StepOrderError.self) { try r.finishStep("walk/section") }
        #expect(try r.finishStep("walk/section/inner") == [.changeStep("walk/section")])
        _ = r.finishTask()
        #expect(throws: TaskRunRules.StepOrderError.self) { try r.startStep("walk/x") }
    }

    /// A composed task's recorders name whole step paths: each section's `motion` recorder runs
    /// over its own section's `motion` step only, and a section's own boundaries start and stop
    /// a recorder scoped to it.
    @Test func wholeStepPathsMatchThatStepOnly() throws {
        var r = TaskRunRules(taskIdentifier: "wb", recorders: [
            ("walk.motion", "wb/walk/motion", "wb/walk/motion"),
            ("balance.motion", "wb/balance/motion", "wb/balance/motion"),
            ("left.tremor", "wb/left", "wb/left"),
            ("any.motion", "motion", nil),
        ])
        #expect(r.startTask().isEmpty)
        #expect(try r.startStep("wb/walk") == [.changeStep("wb/walk")])
        #expect(try r.startStep("wb/walk/motion") == [.changeStep("wb/walk/motion"), .startRecorder("walk.motion"), .startRecorder("any.motion")])
        #expect(try r.finishStep("wb/walk/motion") == [.stopRecorder("walk.motion"), .changeStep("wb/walk")])
        _ = try r.finishStep("wb/walk")
        #expect(try r.startStep("wb/balance/motion") == [.changeStep("wb/balance/motion"), .startRecorder("balance.motion")])
        #expect(try r.finishStep("wb/balance/motion") == [.stopRecorder("balance.motion"), .changeStep("wb")])
        #expect(try r.startStep("wb/left") == [.changeStep("wb/left"), .startRecorder("left.tremor")])
        _ = try r.startStep("wb/left/tremor")
        _ = try r.finishStep("wb/left/tremor")
        #expect(try r.finishStep("wb/left") == [.stopRecorder("left.tremor"), .changeStep("wb")])
        // Not a path's prefix or suffix: only the whole path.
        #expect(!TaskRunRules.step("wb/walk", names: "wb/walk/motion") && !TaskRunRules.step("walk/motion", names: "wb/walk/motion"))
        #expect(r.finishTask() == [.stopRecorder("any.motion")])
    }

    /// config/tasks/fitness-check.json: motion, gait and heart rate start with the walk and stop
    /// when the rest finishes, so the conclusion (a screen, however long it stays up) records
    /// nothing and has no heart-rate summary of its own.
    @Test func theFitnessCheckRecordsTheWalkAndTheRestOnly() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../config/tasks/fitness-check.json")
        let task = try TaskDefinition.decode(try Data(contentsOf: url))
        #expect(task.steps.map(\.identifier) == ["instruction", "countdown", "walk", "rest", "conclusion"])
        #expect(task.asyncActions.map(\.type) == [.motion, .gait, .heartRate])
        var r = TaskRunRules(taskIdentifier: task.identifier, actions: task.asyncActions)
        #expect(r.startTask().isEmpty)
        var recordingIn: [String: [String]] = [:]
        for step in task.steps.map(\.identifier) {
            _ = try r.startStep("fitness-check/\(step)")
            recordingIn[step] = r.recordingIdentifiers
            _ = try r.finishStep("fitness-check/\(step)")
        }
        #expect(recordingIn["walk"] == ["motion", "gait", "heartRate"] && recordingIn["rest"] == ["motion", "gait", "heartRate"])
        #expect(recordingIn["countdown"] == [] && recordingIn["conclusion"] == [], "\(recordingIn)")
        #expect(r.finishTask().isEmpty)
    }
}
