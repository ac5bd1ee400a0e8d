import Foundation
import RecorderClient
import RecorderConfiguration
import RecorderDaemon
import RecorderModel
import RecorderTestSupport
import Testing

/// What a new user meets first, through the real executables: warnings about unknown keys,
/// `recorderd --check-config`, sysexits statuses without usage text for runtime failures, and
/// `recorderctl tail` into a pipe.
@Suite("Configuration checks and exit statuses")
struct CommandLineTests {
    /// Runs an executable to its end; its status and everything it printed (stdout and stderr).
    func run(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, printed: String) {
        let p = try await ChildProcess(ChildProcess.executable(tool), arguments)
        let status = try await p.wait(timeout: 30)
        return (status, p.printed)
    }

    /// Starts recorderd with `file` and connects once it listens (within 20 s).
    func startDaemon(_ file: String, socket: String, logLevel: String) async throws -> (ChildProcess, RecorderClient) {
        let daemon = try await ChildProcess(ChildProcess.executable("recorderd"), ["--config", file, "--log-level", logLevel])
        return (daemon, try await daemon.connectWhenListening(socket, timeout: 20))
    }

    struct CommandLineTestError: Error, CustomStringConvertible { let description: String }

    /// A valid configuration with three typos: top level, in a device, nested in the device.
    func typoConfiguration(in directory: String) throws -> String {
        let path = directory + "/typos.json"
        try """
        {"socket": "\(directory)/control.sock", "dataDirectory": "\(directory)/data", "ringSecnds": 5,
         "devices": [{"name": "imu0", "kind": "replay", "file": "\(Fixtures.shortWalk)", "frequncy": 100,
                      "fusion": {"proportinalGain": 2}}]}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let typoWarnings = ["ringSecnds: unknown key; did you mean ringSeconds?",
                               "devices[0].frequncy: unknown key; did you mean frequency?",
                               "devices[0].fusion.proportinalGain: unknown key; did you mean proportionalGain?"]

    @Test func aRelativeConfigurationPathResolvesItsFilesFromTheWorkingDirectory() {
        // `recorderd --config recorderd.json`: the files it names (a replay device's, the web
        // page's tasks) are beside it, not at the file system's root.
        let cwd = FileManager.default.currentDirectoryPath
        #expect(DaemonConfigurationLoader.check(path: "recorderd.json", required: false, deviceKinds: .unchecked).baseDirectory == cwd)
        #expect(DaemonConfigurationLoader.check(path: "config/../etc/recorderd.json", required: false, deviceKinds: .unchecked).baseDirectory == cwd + "/etc")
        #expect(DaemonConfigurationLoader.check(path: "/etc/recorderd/recorderd.json", required: false, deviceKinds: .unchecked).baseDirectory == "/etc/recorderd")
    }

    @Test(.ownThread) func threeTyposGiveThreeWarningsWithTheKeyMeant() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let file = try typoConfiguration(in: directory)
        // --check-config: the file is usable (exit 0), with a warning for each typo.
        let (status, printed) = try await run("recorderd", ["--check-config", file])
        #expect(status == 0, "\(printed)")
        for warning in Self.typoWarnings { #expect(printed.contains("\(file): warning: \(warning)"), "\(printed)") }
        // The daemon says the same in its log when it starts with the file.
        let (daemon, client) = try await startDaemon(file, socket: directory + "/control.sock", logLevel: "warning")
        client.close()
        #expect(try await daemon.stop() == 0)
        let log = daemon.printed
        for warning in Self.typoWarnings { #expect(log.contains(warning), "\(log)") }
    }

    @Test(.ownThread) func checkConfigPrintsTheEffectiveConfigurationOrEveryProblem() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let good = directory + "/good.json"
        try #"{"dataDirectory": "/srv/data", "devices": [{"name": "imu0", "kind": "iio", "device": "lsm6dsox"}]}"#
            .write(toFile: good, atomically: true, encoding: .utf8)
        let (status, text) = try await run("recorderd", ["--check-config", good])
        #expect(status == 0, "\(text)")
        // Defaults filled in.
        #expect(text.contains("\(good): OK") && text.contains("ringSeconds     30") && text.contains("dataDirectory   /srv/data"), "\(text)")
        #expect(text.contains("socket          /run/recorderd/control.sock (mode 0660)") && text.contains(#"imu0 (iio) {"device":"lsm6dsox"}"#), "\(text)")
        let (jsonStatus, json) = try await run("recorderd", ["--check-config", "--json", good])
        #expect(jsonStatus == 0)
        let effective = try DaemonConfiguration.decode(Data(json.utf8))
        #expect(effective.ringSeconds == 30 && effective.dataDirectory == "/srv/data" && effective.limits.connections == 64)

        // Every problem, not only the first: exit 78.
        let bad = directory + "/bad.json"
        try """
        {"ringSeconds": "long", "orphanTimeout": -1,
         "devices": [{"name": "a", "kind": "nope"}, {"name": "b", "kind": "iio", "fusion": {"proportionalGain": 0}},
                     {"name": "c", "kind": "replay", "file": "x.csv", "columns": {"accelerometer": ["x","y","z"]}, "fusion": true}]}
        """.write(toFile: bad, atomically: true, encoding: .utf8)
        let (badStatus, problems) = try await run("recorderd", ["--check-config", bad])
        #expect(badStatus == 78)
        for expected in ["\(bad): ringSeconds: expected a number", "\(bad): orphanTimeout: expected seconds > 0",
                         "\(bad): devices[0].kind: unknown kind \"nope\"", "\(bad): devices[1].fusion.proportionalGain: expected a gain > 0",
                         "\(bad): devices[2].fusion: needs an accelerometer and a gyroscope", "5 problems; the configuration is refused"] {
            #expect(problems.contains(expected), "\(expected) not in \(problems)")
        }
        // The same file refused by the daemon itself, with every problem.
        let (daemonStatus, daemonLog) = try await run("recorderd", ["--config", bad])
        #expect(daemonStatus == 78 && daemonLog.contains("devices[2].fusion") && daemonLog.contains("ringSeconds"), "\(daemonLog)")

        // The fleet link's files are read at the check (a relative one beside the file); its
        // password is never printed.
        let fleet = directory + "/fleet.json"
        try "secret\n".write(toFile: directory + "/mqtt-password", atomically: true, encoding: .utf8)
        try #"{"mqtt": {"broker": "mqtts://broker.lab", "site": "clinic-a", "username": "pi", "passwordFile": "mqtt-password", "tls": {"ca": "absent-ca.pem"}}}"#
            .write(toFile: fleet, atomically: true, encoding: .utf8)
        let (fleetStatus, fleetProblems) = try await run("recorderd", ["--check-config", fleet])
        #expect(fleetStatus == 78 && fleetProblems.contains("\(fleet): mqtt.tls.ca: cannot read \(directory)/absent-ca.pem"), "\(fleetProblems)")
        #expect(!fleetProblems.contains("passwordFile"), "the password file is readable: \(fleetProblems)")
        try #"{"mqtt": {"broker": "mqtts://broker.lab", "site": "clinic-a", "username": "pi", "passwordFile": "mqtt-password"}}"#
            .write(toFile: fleet, atomically: true, encoding: .utf8)
        let (fleetOK, fleetText) = try await run("recorderd", ["--check-config", fleet])
        #expect(fleetOK == 0 && fleetText.contains("mqtt            mqtts://broker.lab (MQTT auto), site clinic-a, device (host name), prefix recorderd/v1, remote control off"),
                "\(fleetText)")
        #expect(!fleetText.contains("secret"))
        // A live stream of a device the file does not have.
        try #"{"mqtt": {"broker": "mqtt://broker.lab", "site": "clinic-a", "live": [{"device": "imu9"}]}, "devices": [{"name": "imu0", "kind": "iio", "device": "lsm6dsox"}]}"#
            .write(toFile: fleet, atomically: true, encoding: .utf8)
        let (liveStatus, liveProblems) = try await run("recorderd", ["--check-config", fleet])
        #expect(liveStatus == 78 && liveProblems.contains(#"mqtt.live[0].device: no device named "imu9" (devices: imu0)"#), "\(liveProblems)")

        #expect(!fleetText.contains("recorderd-services"), "\(fleetText)")
        // A recorderd without recorderd-services beside it (copied by hand): the check says so,
        // and the file is still valid.
        let alone = directory + "/alone"
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ChildProcess.executable("recorderd"), toPath: alone + "/recorderd")
        try #"{"mqtt": {"broker": "mqtts://broker.lab", "site": "clinic-a"}}"#.write(toFile: alone + "/fleet.json", atomically: true, encoding: .utf8)
        let lone = try await ChildProcess(alone + "/recorderd", ["--check-config", alone + "/fleet.json"])
        let loneStatus = try await lone.wait(timeout: 30)
        #expect(loneStatus == 0, "status \(loneStatus): \(lone.printed)")
        #expect(lone.printed.contains("warning: http and mqtt run in \(alone)/recorderd-services, which is missing"), "\(lone.printed)")

        // A missing file named on the command line.
        let (missingStatus, missing) = try await run("recorderd", ["--check-config", directory + "/absent.json"])
        #expect(missingStatus == 78 && missing.contains("absent.json: no such file"), "\(missing)")
        // A FILE without --check-config is a usage error.
        let (usageStatus, usage) = try await run("recorderd", [good])
        #expect(usageStatus == 64 && usage.contains("--check-config"), "\(usage)")
    }

    @Test(.ownThread) func exitStatusesFollowSysexitsWithoutUsageTextForRuntimeFailures() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let socket = directory + "/none.sock"
        // No daemon: unavailable, one line.
        let (down, downText) = try await run("recorderctl", ["status", "--socket", socket])
        #expect(down == 69, "\(downText)")
        #expect(!downText.contains("Usage") && downText.split(separator: "\n").count == 1 && downText.contains("is recorderd running?"), "\(downText)")
        // A mistyped command line: usage, 64.
        let (usage, usageText) = try await run("recorderctl", ["status", "--sockte", socket])
        #expect(usage == 64 && usageText.contains("Usage"), "\(usageText)")
        // A task file that does not exist, and one that is not a task: 66 and 65.
        let (noInput, noInputText) = try await run("recorderctl", ["run", directory + "/absent.json", "--socket", socket])
        #expect(noInput == 66 && !noInputText.contains("Usage"), "\(noInputText)")
        try "{not json".write(toFile: directory + "/broken.json", atomically: true, encoding: .utf8)
        let (dataError, dataText) = try await run("recorderctl", ["run", directory + "/broken.json", "--socket", socket])
        #expect(dataError == 65 && !dataText.contains("Usage"), "\(dataText)")
        // recorderd: a data directory it cannot create is an I/O failure, one line.
        let (io, ioText) = try await run("recorderd", ["--socket", directory + "/d.sock", "--data-dir", "/proc/recorderd-cannot-be-here",
                                                     "--config", try writeEmptyConfiguration(in: directory)])
        #expect(io == 74, "\(ioText)")
        #expect(!ioText.contains("Usage"), "\(ioText)")
        let (badFlag, _) = try await run("recorderd", ["--no-such-flag"])
        #expect(badFlag == 64)
    }

    /// Async actions keep accepting keys recorderd does not read (SageResearch files carry
    /// them); `--verbose` lists them, with the key meant when one is close.
    @Test(.ownThread) func verboseListsTheKeysATaskFileHasThatRecorderdIgnores() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let task = directory + "/task.json"
        try """
        {"identifier": "walk", "steps": [{"identifier": "walk", "duration": 1, "image": "walk.png"}],
         "asyncActions": [{"identifier": "motion", "type": "motion", "frequncy": 50, "saveAudioFile": true,
                           "recorderTypes": ["accelerometer"]}]}
        """.write(toFile: task, atomically: true, encoding: .utf8)
        // No daemon: the file is read (and reported on) before connecting.
        let (status, printed) = try await run("recorderctl", ["run", task, "--verbose", "--socket", directory + "/none.sock"])
        #expect(status == 69)
        for expected in ["\(task): ignored asyncActions[0].frequncy: unknown key; did you mean frequency?",
                         "\(task): ignored asyncActions[0].saveAudioFile: unknown key",
                         "\(task): ignored steps[0].image: unknown key"] {
            #expect(printed.contains(expected), "\(expected) not in \(printed)")
        }
        let (quiet, quietText) = try await run("recorderctl", ["run", task, "--socket", directory + "/none.sock"])
        #expect(quiet == 69 && !quietText.contains("ignored"), "\(quietText)")
        let (_, actions) = try await run("recorderctl", ["start", "walk", "--verbose", "--socket", directory + "/none.sock",
                                                         "--actions", #"[{"identifier": "m", "type": "motion", "preRoll": 2}]"#])
        #expect(actions.contains("--actions: ignored actions[0].preRoll: unknown key"), "\(actions)")
    }

    /// An answer that does not decode (a server that is not recorderd, or a version mismatch)
    /// is an internal error: 70, one line.
    @Test(.ownThread) func anAnswerThatDoesNotDecodeIsASoftwareError() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = directory + "/odd.sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        let bound = UnixSocketAddress.with(path) { bind(listener, $0, $1) }
        try #require(bound == 0 && listen(listener, 1) == 0)
        // One connection: read the request line, answer its id with a result of the wrong type.
        let server = Thread {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            defer { close(fd) }
            var request: [UInt8] = []
            var byte: UInt8 = 0
            while read(fd, &byte, 1) == 1, byte != UInt8(ascii: "\n") { request.append(byte) }
            let id = (try? JSONSerialization.jsonObject(with: Data(request)) as? [String: Any])?["id"] as? Int ?? 0
            let answer = Array(#"{"jsonrpc":"2.0","id":\#(id),"result":42}"#.utf8) + [UInt8(ascii: "\n")]
            _ = answer.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
        server.start()
        let (status, printed) = try await run("recorderctl", ["status", "--socket", path])
        #expect(status == 70 && printed.contains("invalid response") && !printed.contains("Usage"), "\(printed)")
    }

    func writeEmptyConfiguration(in directory: String) throws -> String {
        let path = directory + "/empty.json"
        try "{}".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// With a daemon: a missing device is unavailable (69); an unknown task run is a data error (65).
    @Test(.ownThread) func daemonRefusalsMapToTheirStatus() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let file = try typoConfiguration(in: directory)
        let socket = directory + "/control.sock"
        let (daemon, connected) = try await startDaemon(file, socket: socket, logLevel: "error")
        let (missing, missingText) = try await run("recorderctl", ["tail", "nope", "--socket", socket])
        #expect(missing == 69 && missingText.contains("no device named") && !missingText.contains("Usage"), "\(missingText)")
        let (unknownRun, unknownText) = try await run("recorderctl", ["finish", UUID().uuidString, "--socket", socket])
        #expect(unknownRun == 65 && !unknownText.contains("Usage"), "\(unknownText)")

        // tail into a pipe: lines arrive as they come, not when a 4 KiB block fills — at 2
        // records a second per type a block takes ~17 s, so the first record line within 10 s
        // (however loaded the machine) tells the two apart.
        let tail = try await ChildProcess(ChildProcess.executable("recorderctl"), ["tail", "imu0", "--rate", "2", "--socket", socket])
        let line = try await offPool { Self.firstLines(tail.outputDescriptor, count: 2, timeout: 10) }
        #expect(line.count == 2 && (line[1].contains("accelerometer") || line[1].contains("gyro")), "\(line)")
        _ = try await tail.stop()
        connected.close()
        #expect(try await daemon.stop() == 0)
    }

    /// The first `count` lines readable from `fd` within `timeout` seconds.
    static func firstLines(_ fd: Int32, count: Int, timeout: Double) -> [String] {
        var text = ""
        let deadline = Deadline(seconds: timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while text.filter({ $0 == "\n" }).count < count {
            let remaining = deadline.remaining
            guard remaining > 0 else { break }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(remaining * 1000)) > 0 else { break }
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else { break }
            text += String(decoding: buffer[0..<n], as: UTF8.self)
        }
        return Array(text.split(separator: "\n").prefix(count).map(String.init))
    }
}
