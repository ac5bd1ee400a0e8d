import Foundation
import RecorderConfiguration
import RecorderEngine
import RecorderFHIR
import RecorderJSON
import RecorderModel
import RecorderTestSupport
import Testing

/// The clinical walking tests' task files in `config/tasks/`: each is a task recorderd runs,
/// whose gait action scores its test over one of its steps; and one of them, the Timed Up and
/// Go, run by `recorderctl run` against a recorderd replaying a course (`WalkingCourse`),
/// printing its outcome.
@Suite("Clinical walking tests' task files")
struct ClinicalTaskFileTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../config/tasks").standardized.path

    @Test(arguments: [("six-minute-walk", WalkingTest.Kind.sixMinuteWalk, 360.0), ("timed-walk-10m", .timedWalk, 25),
                      ("timed-walk-25ft", .timedWalk, 25), ("timed-up-and-go", .timedUpAndGo, 40)])
    func eachTaskFileScoresItsTestOverOneOfItsSteps(name: String, kind: WalkingTest.Kind, seconds: Double) throws {
        let path = Self.directory + "/\(name).json"
        let definition = try TaskFile.load(path)
        #expect(definition.identifier == name)
        #expect(TaskFile.ignoredKeys(try Data(contentsOf: URL(fileURLWithPath: path))).isEmpty)
        let gait = try #require(definition.asyncActions.first { $0.type == .gait })
        guard case .gait(let options) = gait.options else { Issue.record("not a gait action"); return }
        let test = try #require(options.walkingTest)
        #expect(test.kind == kind)
        let step = try #require(definition.steps.first { $0.identifier == test.stepIdentifier })
        #expect(step.duration == seconds)
        // The gait action records the scored step.
        let ids = definition.steps.map(\.identifier)
        let from = try #require(ids.firstIndex(of: gait.startStepIdentifier ?? "")), to = try #require(ids.firstIndex(of: gait.stopStepIdentifier ?? ""))
        let at = try #require(ids.firstIndex(of: test.stepIdentifier))
        #expect(from <= at && at <= to)
        // A motion action records the raw data of the same span.
        #expect(definition.asyncActions.contains { $0.type == .motion && $0.startStepIdentifier == gait.startStepIdentifier })
    }

    /// `recorderctl run config/tasks/timed-up-and-go.json` with the step as long as the course,
    /// the course replayed from the step's start: the printed Timed Up and Go time within 1 s
    /// of the course's (the replay starts when the recorder does, a few milliseconds into the
    /// step), its phases in the task result.
    @Test(.timeLimit(.minutes(3)), .ownThread)
    func timedUpAndGoThroughRecorderctlRun() async throws {
        var course = try WalkingCourse(postureOf: "HA/001/TimeMeasure1_Test5_Trial1")
        course.seated(seconds: 1.5)
        course.rise(seconds: 2)
        try course.walk("HA/001/TimeMeasure1_Test5_Trial1", from: 4, to: 11.5)
        course.turn(180, seconds: 2)
        try course.walk("HA/001/TimeMeasure1_Test5_Trial2", from: 3, to: 10)
        course.turn(-180, seconds: 2)
        course.sitDown(seconds: 2)
        course.seated(seconds: 2)
        let dir = try Fixtures.temporaryDirectory()
        try course.csv().write(toFile: dir + "/tug.csv", atomically: true, encoding: .utf8)
        let configuration = try TestConfiguration(directory: dir, devices: [Fixtures.replayDevice(file: dir + "/tug.csv", loop: false)])
        let daemon = try await ChildProcess(ChildProcess.executable("recorderd"), ["--config", try configuration.write(), "--log-level", "error"])
        let client = try await daemon.connectWhenListening(configuration.socket, timeout: 20)
        client.close()
        let ctl = try await ChildProcess(ChildProcess.executable("recorderctl"), [
            "run", Self.directory + "/timed-up-and-go.json", "--auto", "--step-seconds", String(format: "%.2f", course.duration + 0.3),
            "--sensor-height", "1.0", "--socket", configuration.socket,
        ])
        #expect(try await ctl.wait(timeout: 120) == 0, "\(ctl.printed)")
        #expect(try await daemon.stop() == 0)
        let printed = ctl.printed
        let line = try #require(printed.split(separator: "\n").first { $0.contains("Timed Up and Go: ") }, "\(printed)")
        print("recorderctl run: \(line)")
        let rise = try #require(course.segments.first { $0.kind == .rise }), sit = try #require(course.segments.first { $0.kind == .sitDown })
        let truth = sit.end - rise.start
        let seconds = try #require(line.split(separator: "Timed Up and Go: ").last.flatMap { Double($0.split(separator: " ").first ?? "") })
        #expect(abs(seconds - truth) <= 1, "printed \(seconds) s, the course's \(truth) s")
        #expect(line.contains("sit-to-stand") && line.contains("turn") && line.contains("stand-to-sit"), "\(line)")
    }
}
