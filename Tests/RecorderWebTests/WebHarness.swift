import Foundation
import RecorderClient
import RecorderConfiguration
import RecorderModel
import RecorderTestSupport
import Testing

/// The real recorderd executable with its web page on, a replay device and a task folder; and
/// Tests/Tools/check_web.py, which drives the page in a real headless Chromium.
struct WebHarness: RecorderdHarness {
    let recorderd: TestDaemon
    let port: Int
    var base: String { "http://127.0.0.1:\(port)" }

    static let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Tools/check_web.py").standardized.path
    /// A task file of `config/tasks/` (`name` without `.json`).
    static func taskFile(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../config/tasks/\(name).json").standardized.path
    }
    static let gaitTask = taskFile("gait-balance")

    /// Starts recorderd listening on `host` (a free port) with `token`; returns once it is ready
    /// and the page (recorderd's services process) accepts connections.
    /// `awaitingPage` false: returns once recorderd is ready (a test whose port is taken).
    /// `device`: the replay device (by default a daily-living recording, looped); `tasks`: files
    /// added to the task folder (name without `.json`, contents).
    static func start(host: String = "127.0.0.1", token: String? = nil, port chosen: Int? = nil, awaitingPage: Bool = true, logLevel: String = "notice",
                      device: DeviceConfiguration = Fixtures.replayDevice(file: Fixtures.root + "/imu/mobgap/MS/001/TimeMeasure1_Test11_Trial1.csv"),
                      tasks: [String: Data] = [:]) async throws -> WebHarness {
        var configuration = try TestConfiguration(devices: [device])
        try writeTasks(in: configuration.directory + "/tasks")
        for (name, contents) in tasks { try contents.write(to: URL(fileURLWithPath: configuration.directory + "/tasks/\(name).json")) }
        let port = chosen ?? LoopbackTCP.freePort()
        try configuration.page(listen: "\(host):\(port)", token: token)
        // At notice, the services process says when the page listens: the event waited for.
        let recorderd = try await TestDaemon.start(.executable(logLevel: logLevel), configuration)
        let harness = WebHarness(recorderd: recorderd, port: port)
        let listening = awaitingPage ? try await harness.pageListening(times: 1) : true
        guard listening else {
            _ = try? await harness.daemon.stop(signal: SIGKILL, timeout: 5)
            throw WebHarnessError(description: "the page did not listen on \(host):\(port): \(harness.daemon.printed)")
        }
        return harness
    }

    struct WebHarnessError: Error, CustomStringConvertible { let description: String }

    /// Waits until the services process has said `times` times that the page listens (a second
    /// time: started again after it ended); false after `timeout` s.
    func pageListening(times: Int, timeout: Double = 30) async throws -> Bool {
        try await daemon.printed(where: { $0.components(separatedBy: "web page listening").count > times }, timeout: timeout) != nil
    }

    /// The task folder: the gait task with short steps and a question before it, and a file that
    /// does not parse.
    static func writeTasks(in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try shortGaitTask().write(to: URL(fileURLWithPath: folder + "/gait-short.json"))
        try Data(#"{"identifier": "broken", "steps": ["#.utf8).write(to: URL(fileURLWithPath: folder + "/broken.json"))
    }

    /// config/tasks/gait-balance.json with 1 s and 3 s steps and an optional 0–10 pain question.
    static func shortGaitTask() throws -> Data {
        var task = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: gaitTask))) as? [String: Any])
        var steps = try #require(task["steps"] as? [[String: Any]])
        for i in steps.indices where steps[i]["duration"] != nil {
            steps[i]["duration"] = steps[i]["identifier"] as? String == "countdown" ? 1 : 3
        }
        steps.insert(["identifier": "pain", "title": "Pain today", "text": "How much pain do you have?",
                      "question": ["answerType": "scale", "min": 0, "max": 10, "optional": true]], at: 1)
        task["steps"] = steps
        return try JSONSerialization.data(withJSONObject: task, options: [.sortedKeys])
    }

    /// Runs check_web.py; the JSON object it printed last.
    func check(_ arguments: [String], timeout: Double = 240) async throws -> [String: Any] {
        let p = try await ChildProcess("/usr/bin/env", ["python3", Self.checker] + arguments)
        let status = try await p.wait(timeout: timeout)
        let printed = p.printed
        try #require(status == 0, "check_web.py \(arguments.first ?? ""): \(printed)\nDAEMON: \(daemon.printedSoFar())")
        let line = try #require(printed.split(separator: "\n").last { $0.hasPrefix("{") }, "\(printed)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    func stop() async throws -> Int32 {
        try await daemon.stop()
    }
}
