import Foundation
import RecorderModel
import RecorderTestSupport
import Testing

/// SageResearch tasks composed of sections and included files, run end to end by the real
/// `recorderctl run` against a daemon replaying a real walk: the right recorders over the right
/// steps of the right sections, a file each, the sections' own boundaries in the step history,
/// and bad input refused before anything is recorded.
@Suite("Composed SageResearch tasks through recorderctl run")
struct ComposedTaskRunTests {
    static let directory = Fixtures.root + "/sage-tasks"

    /// Runs `recorderctl run TASK --auto --step-seconds 1` (and `extra`); its status, what it
    /// printed, the run directory and the manifest (nil when no run was made).
    func run(_ task: String, socket: String, extra: [String] = []) async throws -> (Int32, String, String?, TaskResult?) {
        let p = try await ChildProcess(ChildProcess.executable("recorderctl"),
                                       ["run", task, "--socket", socket, "--auto", "--step-seconds", "1"] + extra)
        let status = try await p.wait(timeout: 120)
        let printed = p.printed
        guard let line = printed.split(separator: "\n").first(where: { $0.hasPrefix("run directory: ") }) else { return (status, printed, nil, nil) }
        let directory = String(line.dropFirst("run directory: ".count))
        let manifest = try TaskResult.makeDecoder().decode(TaskResult.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/taskResult.json")))
        return (status, printed, directory, manifest)
    }

    /// The step paths the records of a JSON-lines file carry, in order, each once per run of them.
    func stepPaths(_ path: String) throws -> [String] {
        var paths: [String] = []
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let stepPath = object["stepPath"] as? String else { continue }
            if paths.last != stepPath { paths.append(stepPath) }
        }
        return paths
    }

    func entry(_ result: TaskResult, _ path: String) throws -> StepHistoryEntry {
        try #require(result.stepHistory.first { $0.stepPath == path }, "no step \(path) in \(result.stepHistory.map(\.stepPath))")
    }

    @Test(.timeLimit(.minutes(3)), .ownThread)
    func theWalkAndBalanceTaskRecordsEachSectionApart() async throws {
        let d = try await TestDaemon.inProcess()
        let (status, printed, directory, manifest) = try await run(Self.directory + "/walk-and-balance.json", socket: d.socket)
        #expect(status == 0, "\(printed)")
        let result = try #require(manifest, "\(printed)")
        let root = try #require(directory)
        // Each section has its own boundaries around its steps.
        let paths = result.stepHistory.map(\.stepPath)
        for section in ["walk", "balance"] {
            let own = try entry(result, "walk-and-balance/\(section)")
            for child in paths where child.hasPrefix("walk-and-balance/\(section)/") {
                let step = try entry(result, child)
                #expect(own.startUptime <= step.startUptime && (step.endUptime ?? .infinity) <= (own.endUptime ?? 0), "\(child)")
            }
        }
        #expect(paths.filter { $0.hasPrefix("walk-and-balance/walk/") } == ["walk-and-balance/walk/instruction", "walk-and-balance/walk/countdown", "walk-and-balance/walk/motion"])
        // Two `motion` recorders of the same identifier in two sections: two files, each over its
        // own section's steps.
        let files = result.asyncResults.compactMap(\.file)
        #expect(files.map(\.identifier).sorted() == ["balance.motion", "walk.motion"], "\(result.asyncResults)")
        let walk = try #require(files.first { $0.identifier == "walk.motion" })
        let balance = try #require(files.first { $0.identifier == "balance.motion" })
        #expect(walk.relativePath != balance.relativePath)
        let walkPaths = try stepPaths(root + "/" + walk.relativePath)
        // (Records between two steps carry the section's own path, as a flat task's carry the task's.)
        #expect(walkPaths.filter { $0 != "walk-and-balance/walk" } == ["walk-and-balance/walk/countdown", "walk-and-balance/walk/motion"], "\(walkPaths)")
        #expect(try stepPaths(root + "/" + balance.relativePath) == ["walk-and-balance/balance/motion"])
        let countdown = try entry(result, "walk-and-balance/walk/countdown")
        let walkStep = try entry(result, "walk-and-balance/walk/motion")
        #expect(walk.startUptime >= countdown.startUptime && (walk.endUptime ?? .infinity) <= (walkStep.endUptime ?? 0) + 0.5)
        #expect(walk.sampleCount > 100 && balance.sampleCount > 50, "\(walk.sampleCount) \(balance.sampleCount)")
        // The fused types of SageResearch's motion recorder, in the records.
        #expect(walk.units["attitude"] != nil && walk.units["userAcceleration"] != nil, "\(walk.units)")
        try await d.stop()
    }

    @Test(.timeLimit(.minutes(3)), .ownThread)
    func oneSectionFileIncludedTwiceRecordsLeftThenRight() async throws {
        let d = try await TestDaemon.inProcess()
        let (status, printed, directory, manifest) = try await run(Self.directory + "/two-hands.json", socket: d.socket)
        #expect(status == 0, "\(printed)")
        let result = try #require(manifest, "\(printed)")
        let root = try #require(directory)
        let files = result.asyncResults.compactMap(\.file)
        #expect(files.map(\.identifier).sorted() == ["everything", "left.tremor", "right.tremor"], "\(result.asyncResults)")
        let left = try #require(files.first { $0.identifier == "left.tremor" })
        let right = try #require(files.first { $0.identifier == "right.tremor" })
        #expect((left.endUptime ?? .infinity) <= right.startUptime)
        #expect(try stepPaths(root + "/" + left.relativePath).allSatisfy { $0.hasPrefix("two-hands/left") })
        #expect(try stepPaths(root + "/" + right.relativePath).allSatisfy { $0.hasPrefix("two-hands/right") })
        // The task's own recorder spans both hands.
        let everything = try #require(files.first { $0.identifier == "everything" })
        #expect(everything.startUptime <= left.startUptime && (right.endUptime ?? 0) <= (everything.endUptime ?? .infinity))
        try await d.stop()
    }

    /// MotorControl's tremor task: the hand selection's answer decides the hands and, for both,
    /// their order (`--answer`, else `--auto` answers both, in a random order).
    @Test(.timeLimit(.minutes(4)), .ownThread)
    func theHandSelectionDecidesWhichHandsRecordAndInWhichOrder() async throws {
        let d = try await TestDaemon.inProcess()
        let task = Self.directory + "/tremor.json"
        let (status, printed, _, manifest) = try await run(task, socket: d.socket, extra: ["--answer", "handSelection=right"])
        #expect(status == 0, "\(printed)")
        let right = try #require(manifest, "\(printed)")
        #expect(right.asyncResults.compactMap(\.file).map(\.identifier) == ["right.tremor"])
        #expect(!right.stepHistory.contains { $0.stepPath.hasPrefix("tremor/left") })
        let answer = right.stepHistory.first { $0.stepPath == "tremor/handSelection" }?.results?.first
        #expect(answer?.identifier == "handSelection" && answer?.value == .string("right"))

        let (both, bothPrinted, _, bothManifest) = try await run(task, socket: d.socket, extra: ["--answer", "handSelection=both", "--answer", "handOrder=right,left"])
        #expect(both == 0, "\(bothPrinted)")
        let files = try #require(bothManifest).asyncResults.compactMap(\.file)
        let first = try #require(files.first { $0.identifier == "right.tremor" }), second = try #require(files.first { $0.identifier == "left.tremor" })
        #expect((first.endUptime ?? .infinity) <= second.startUptime)
        let paths = try #require(bothManifest).stepHistory.map(\.stepPath)
        #expect(paths.firstIndex(of: "tremor/right")! < paths.firstIndex(of: "tremor/left")!, "\(paths)")

        let (auto, autoPrinted, _, autoManifest) = try await run(task, socket: d.socket)
        #expect(auto == 0, "\(autoPrinted)")
        #expect(try #require(autoManifest).asyncResults.compactMap(\.file).map(\.identifier).sorted() == ["left.tremor", "right.tremor"])

        // A preset that is no answer, or to no question: refused before a run is made.
        for bad in [["--answer", "handSelection=feet"], ["--answer", "handOrder=left"], ["--answer", "nothing=1"]] {
            let (refused, text, directory, _) = try await run(task, socket: d.socket, extra: bad)
            #expect(refused == 64 && directory == nil, "\(bad): \(text)")
            #expect(text.contains("--answer \(bad[1].split(separator: "=")[0])"), "\(text)")
        }
        try await d.stop()
    }

    /// Bad input: the error names the missing file and the including one, a step type recorderd
    /// does not know is listed by --verbose, and nothing is recorded for a refused task.
    @Test(.timeLimit(.minutes(3)), .ownThread)
    func aMissingIncludeIsRefusedBeforeAnythingIsRecorded() async throws {
        let d = try await TestDaemon.inProcess()
        let folder = try Fixtures.temporaryDirectory()
        try #"{"identifier": "broken", "steps": [{"identifier": "walk", "type": "transform", "resourceTransformer": {"resourceName": "Nowhere_Section"}}]}"#
            .write(toFile: folder + "/broken.json", atomically: true, encoding: .utf8)
        let (status, printed, directory, _) = try await run(folder + "/broken.json", socket: d.socket)
        #expect(status != 0 && directory == nil, "\(printed)")
        #expect(printed.contains("\(folder)/broken.json: steps[0].resourceTransformer.resourceName: cannot read \(folder)/Nowhere_Section.json (included by \(folder)/broken.json)"), "\(printed)")
        let runs = (try? FileManager.default.contentsOfDirectory(atPath: d.dataDirectory)) ?? []
        #expect(runs.allSatisfy { !$0.contains("broken") }, "\(runs)")

        try #"{"identifier": "hands", "steps": [{"identifier": "which", "type": "tapping", "title": "Tap with two fingers"}, {"identifier": "hold", "type": "active", "duration": 3, "commands": ["transitionAutomatically"]}]}"#
            .write(toFile: folder + "/hands.json", atomically: true, encoding: .utf8)
        let (listed, text, _, _) = try await run(folder + "/hands.json", socket: d.socket, extra: ["--verbose"])
        #expect(listed == 0, "\(text)")
        #expect(text.contains("step which: type \"tapping\" runs as an instruction"), "\(text)")
        try await d.stop()
    }
}
