import ArgumentParser
import FoundationEssentials
import Glibc
import RecorderClient
import RecorderFHIR
import RecorderJSON
import RecorderModel
import Subprocess
import SystemPackage
import RecorderRuntime

/// `recorderctl demo`: a private recorderd on a temporary socket, replaying real walking data,
/// runs `config/tasks/gait-balance.json` with short steps and prints the result. The replay starts
/// `DemoResources.walkStart` seconds into a real daily-living recording, where the participant
/// walks for eight seconds and then stands: the steps' demo durations follow the data, so the
/// walking steps show real steps and the rest step real sway.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Run the gait/balance task on replayed real data with a private recorderd.")

    @Option(name: .customLong("step-seconds"), help: "Make every timed step this long (default: timed to the data, 17 s in all).")
    var stepSeconds: Double?
    @Option(name: .customLong("data-dir"), help: "Where to keep the run (default: a new temporary directory).") var dataDir: String?
    @Option(help: "Project directory holding config/ and Tests/Fixtures/ (default: found from the executable).") var resources: String?

    func run() async throws {
        let root = try resources ?? DemoResources.locate()
        let taskFile = root + "/config/tasks/gait-balance.json"
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("recorderd-demo-\(getpid())").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let walk = work + "/walk.csv"
        try DemoResources.writeWalk(from: root + "/" + DemoResources.walkFile, to: walk)
        let data = dataDir ?? work + "/data"
        let socketPath = work + "/control.sock"
        // Paths as JSON strings (a temporary directory's name may hold any character).
        func quoted(_ text: String) throws -> String { String(decoding: try JSONTextEncoder().encode(text), as: UTF8.self) }
        let config = """
        {"socket": \(try quoted(socketPath)), "dataDirectory": \(try quoted(data)), "ringSeconds": 30,
         "devices": [{"name": "imu0", "kind": "replay", "file": \(try quoted(walk)), "frequency": 100,
                      "columns": {"accelerometer": ["acc_x","acc_y","acc_z"], "gyro": ["gyr_x","gyr_y","gyr_z"]},
                      "units": {"accelerometer": "g", "gyro": "deg/s"}, "speed": 1.0, "loop": true}]}
        """
        let configPath = work + "/recorderd.json"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)

        // The private recorderd runs for the length of this scope (swift-subprocess): stopped with
        // SIGTERM when the run ends, and torn down the same way (then SIGKILL after 10 s) when
        // anything in it throws.
        var options = PlatformOptions()
        options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .seconds(10))]
        let outcome = try await Subprocess.run(.path(FilePath(DemoResources.siblingExecutable("recorderd").path)),
                                               arguments: ["--config", configPath, "--log-level", "warning"],
                                               platformOptions: options, input: .none,
                                               output: .currentStandardOutput, error: .currentStandardError) { execution in
            let pid = execution.processIdentifier.value
            print("recorderd (pid \(pid)) on \(socketPath), replaying \(DemoResources.walkFile)")
            let client = try await DemoResources.connect(socketPath: socketPath, daemon: pid)
            for d in try await client.devices() { print("device " + DevicesCommand.line(d)) }
            var definition = try TaskFile.load(taskFile, verbose: false)
            // The replayed participant's sensor height: the walks' distance and speed.
            definition.setParticipant(bodyHeight: nil, sensorHeight: DemoResources.sensorHeight)
            if stepSeconds == nil {
                for i in definition.steps.indices {
                    if let seconds = DemoResources.stepSeconds[definition.steps[i].identifier] { definition.steps[i].duration = seconds }
                }
            }
            let runner = TaskDefinitionRunner(client: client, definition: definition, automatic: true, stepSeconds: stepSeconds)
            let (directory, result) = try await runner.run(presenter: TerminalPresenter())
            Summary.print(result, runDirectory: directory)
            client.close()
            try execution.send(signal: .terminate)
            return directory
        }
        let directory = outcome.closureResult
        if !outcome.terminationStatus.isSuccess {
            StandardStreams.error("recorderd ended with \(outcome.terminationStatus)\n")
        }
        print("\nfiles:")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory).sorted()) ?? [] { print("  \(directory)/\(name)") }
    }
}

/// Finds the demo's bundled data and the daemon executable.
enum DemoResources {
    static let walkFile = "Tests/Fixtures/imu/mobgap/MS/001/TimeMeasure1_Test11_Trial1.csv"
    /// MS/001's lower-back sensor height, m (`participant_metadata.json`).
    static let sensorHeight = 0.975
    /// Seconds into `walkFile` the demo's replay starts: six seconds of walking (the end of a
    /// 34-step bout of the INDIP reference, and the two steps of stopping after it, the last at
    /// 147.5 s), then standing.
    static let walkStart = 140.0
    /// The demo's step durations, timed to the data from `walkStart`.
    static let stepSeconds = ["countdown": 1.0, "walking.outbound": 4, "walking.return": 4, "walking.rest": 8]

    /// Writes the rows of `source` (100 Hz) from `walkStart` on, with its header, to `path`.
    static func writeWalk(from source: String, to path: String) throws {
        guard let text = try? String(contentsOfFile: source, encoding: .utf8) else {
            throw CommandFailure("cannot read the demo data \(source)", .noInput)
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        let skip = Int(walkStart * 100)
        guard lines.count > skip + 1 else { throw CommandFailure("\(source) is shorter than the demo expects", .dataError) }
        let kept = [lines[0]] + lines[(skip + 1)...]
        try (kept.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// The project directory: walks up from the executable and from the working directory.
    static func locate() throws -> String {
        var candidates: [URL] = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        if let exe = executablePath() { candidates.append(URL(fileURLWithPath: PathText.parent(of: exe))) }
        for start in candidates {
            var dir = start
            for _ in 0..<8 {
                if FileManager.default.fileExists(atPath: dir.path + "/config/tasks/gait-balance.json"),
                   FileManager.default.fileExists(atPath: dir.path + "/" + walkFile) {
                    return dir.path
                }
                dir = dir.deletingLastPathComponent()
            }
        }
        for shared in ["/usr/local/share/recorderd", "/usr/share/recorderd"] where FileManager.default.fileExists(atPath: shared + "/" + walkFile) {
            return shared
        }
        throw CommandFailure("cannot find config/tasks/gait-balance.json and the demo data; pass --resources DIR", .noInput)
    }

    static func siblingExecutable(_ name: String) -> URL {
        let exe = executablePath() ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: PathText.parent(of: exe) + "/" + name)
    }

    /// This program's file, its links resolved (`/proc/self/exe`).
    static func executablePath() -> String? {
        guard let path = realpath("/proc/self/exe", nil) else { return nil }
        defer { free(path) }
        return String(cString: path)
    }

    /// Connects once the daemon listens (it binds within a second); fails if it exits first.
    static func connect(socketPath: String, daemon: pid_t) async throws -> RecorderClient {
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            if let client = try? await RecorderClient.connect(socketPath: socketPath) { return client }
            if let status = exitStatus(of: daemon) { throw CommandFailure("recorderd exited with status \(status)", .unavailable) }
            guard ContinuousClock.now < deadline else { throw CommandFailure("recorderd did not listen on \(socketPath) within 20 s", .unavailable) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The exit status of `pid` once it has exited, without reaping it (swift-subprocess does).
    static func exitStatus(of pid: pid_t) -> Int32? {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info._sifields._sigchld.si_pid == pid else { return nil }
        return info._sifields._sigchld.si_status
    }
}
