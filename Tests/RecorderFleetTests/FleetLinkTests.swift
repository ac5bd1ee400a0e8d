import Foundation
import RecorderClient
import RecorderConfiguration
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderTestSupport
import Testing

extension FleetTests {
    /// recorderd's fleet link against a real mosquitto broker: the retained status and its Last Will,
    /// events, and remote control, each read back by mosquitto's own clients.
    @Suite(.enabled(if: MosquittoBroker.testsEnabled("FleetLinkTests"), "needs mosquitto (scripts/setup.sh)"))
    struct FleetLinkTests {
        /// Runs recorderctl; its output (a failure is an issue).
        static func recorderctl(_ arguments: [String]) async throws -> String {
            let p = try await ChildProcess(ChildProcess.executable("recorderctl"), arguments)
            let status = try await p.wait(timeout: 30)
            let printed = p.printed
            #expect(status == 0, "recorderctl \(arguments): \(printed)")
            return printed
        }

        @Test(.timeLimit(.minutes(2)), .ownThread)
        func theRetainedStatusIsOnlineThenOfflineWhenRecorderdStops() async throws {
            let broker = try await MosquittoBroker.start()
            let pi = try await FleetHarness.start(broker: broker)
            let online = try await pi.retainedStatus { $0.state == .online }
            #expect(online.site == "lab" && online.device == "pi-1" && online.version == RecorderVersion.string, "\(online)")
            #expect(online.devices?.map(\.name) == ["imu0"] && online.devices?.first?.kind == "replay", "\(online)")
            #expect(online.taskRuns == [] && online.time != nil)
            #expect(try #require(online.disk).totalBytes > 0, "the first status measures the disk")
            // recorderctl fleet: what the broker holds.
            let fleet = try await Self.recorderctl(["fleet", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--json"])
            let listed = try JSONValueDecoder().decode([FleetStatus].self, from: Array(fleet.utf8))
            #expect(listed.map(\.device) == ["pi-1"] && listed.first?.state == .online, "\(fleet)")
            #expect(try await pi.daemon.stop() == 0)
            let offline = try await pi.retainedStatus { $0.state == .offline }
            #expect(offline.reason == "stopped" && offline.device == "pi-1", "\(offline)")
            #expect(pi.daemon.printed.contains("offline published"))
            let table = try await Self.recorderctl(["fleet", "--broker", "mqtt://127.0.0.1:\(broker.port)"])
            #expect(table.contains("lab          pi-1         offline (stopped)"), "\(table)")
            let none = try await Self.recorderctl(["fleet", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--site", "elsewhere"])
            #expect(none.contains("no recorderd under recorderd/v1/"), "\(none)")
            try await broker.stop()
        }

        /// kill -9: the kernel closes the connection and the broker publishes the Will at once.
        /// A Pi that goes silent with its connection open (frozen here with SIGSTOP, as after a power
        /// cut or a lost network): the Will within 1.5 keepalives (5 s here) and the broker's 5 s
        /// keepalive sweep; woken, it reconnects and is online again.
        @Test(.timeLimit(.minutes(2)), .ownThread)
        func theLastWillTurnsTheStatusOfflineWhenRecorderdIsKilledOrSilent() async throws {
            let broker = try await MosquittoBroker.start()
            let pi = try await FleetHarness.start(broker: broker)
            _ = try await pi.retainedStatus { $0.state == .online }
            let watcher = try await pi.readySubscriber(pi.topics + "/status")
            // The whole Pi: recorderd and its services process, which holds the link.
            let services = try #require(pi.daemon.onlyChild, "recorderd's services process")
            let frozen = ContinuousClock.now
            kill(services, SIGSTOP)
            kill(pi.daemon.pid, SIGSTOP)
            let silent = try await pi.message(on: watcher, topic: pi.topics + "/status", timeout: 50) { $0.contains("\"offline\"") }
            let seconds = Double((ContinuousClock.now - frozen) / .milliseconds(1)) / 1000
            #expect(try JSONValueDecoder().decode(FleetStatus.self, from: Array(silent.utf8)).reason == "connection lost")
            // Not before 1.5 keepalives after the Pi's last packet, which was at most a keepalive
            // before it went silent: so not before 2.5 s (not the closed connection of a kill).
            #expect(seconds >= 2.5, "the Will came \(seconds) s after the Pi went silent (keepalive 5 s)")
            // The broker's own log says why: the client that asked for a 5 s keepalive (recorderd's
            // link) is the one it dropped for exceeding it. When it does so is mosquitto's
            // (2.0.11: whole seconds, a sweep every ~6 s; 11–15 s here, 25 s on a loaded CI
            // machine), printed rather than bounded.
            let log = broker.log.split(separator: "\n")
            let dropped = log.compactMap { line -> Substring? in
                guard let r = line.range(of: ": Client "), let e = line.range(of: " has exceeded timeout") else { return nil }
                return line[r.upperBound..<e.lowerBound]
            }
            let keepalive5 = Set(log.compactMap { line -> Substring? in
                guard line.hasSuffix(", k5)."), let r = line.range(of: " as "), let e = line.range(of: " (p", range: r.upperBound..<line.endIndex) else { return nil }
                return line[r.upperBound..<e.lowerBound]
            })
            #expect(!dropped.isEmpty && dropped.allSatisfy(keepalive5.contains), "dropped \(dropped), 5 s keepalives \(keepalive5)")
            print("FLEET will: offline \(seconds) s after the Pi went silent (keepalive 5 s)")
            kill(pi.daemon.pid, SIGCONT)
            kill(services, SIGCONT)
            let back = try await pi.retainedStatus { $0.state == .online }
            #expect(back.devices?.map(\.name) == ["imu0"])

            let killed = ContinuousClock.now
            kill(services, SIGKILL)  // both, as a power cut or systemd's last resort
            try await pi.daemon.stop(signal: SIGKILL)
            let will = try await pi.retainedStatus(timeout: 20) { $0.state == .offline }
            let afterKill = Double((ContinuousClock.now - killed) / .milliseconds(1)) / 1000
            #expect(will.reason == "connection lost" && will.time == nil, "\(will)")
            #expect(afterKill <= 5 * 1.5 + 2, "the Will came \(afterKill) s after kill -9")
            _ = try await watcher.stop()
            try await broker.stop()
        }

        /// A broker that is not there yet: recorderd starts and records anyway, and its status
        /// appears once the broker does.
        @Test(.timeLimit(.minutes(2)), .ownThread)
        func recorderdStartsWithoutItsBrokerAndConnectsWhenItComes() async throws {
            let port = LoopbackTCP.freePort()
            let placeholder = try await MosquittoBroker.start()
            try await placeholder.stop()
            let pi = try await FleetHarness.start(broker: placeholder, port: port)
            try await pi.logged("fleet link down; reconnecting")
            let client = try await RecorderClient.connect(socketPath: pi.socket)
            let run = try await client.startTask(identifier: "offline", asyncActions: [.motion("motion")])
            let broker = try await MosquittoBroker.start(port: port)
            let late = FleetHarness(recorderd: pi.recorderd, broker: broker, topics: pi.topics)
            let online = try await late.retainedStatus(timeout: 60) { $0.state == .online && $0.taskRuns?.count == 1 }
            #expect(online.taskRuns?.first?.taskIdentifier == "offline")
            _ = try await run.finish()
            client.close()
            #expect(try await pi.daemon.stop() == 0)
            try await broker.stop()
        }

        @Test(.timeLimit(.minutes(3)), .ownThread)
        func aTaskRunOverMQTTWritesWhatTheSameRunOverTheSocketWrites() async throws {
            let broker = try await MosquittoBroker.start()
            let pi = try await FleetHarness.start(broker: broker, mqtt: { $0.remoteControl = true })
            _ = try await pi.retainedStatus { $0.state == .online }
            let replies = try await pi.readySubscriber(pi.topics + "/reply")
            let events = try await pi.readySubscriber(pi.topics + "/events")
            var nextID = 1
            func call(_ method: String, _ params: String) async throws -> [String: Any] {
                let id = "r\(nextID)"
                nextID += 1
                try await broker.publish(pi.topics + "/cmd", #"{"jsonrpc": "2.0", "id": "\#(id)", "method": "\#(method)", "params": \#(params)}"#)
                let reply = try await pi.message(on: replies, topic: pi.topics + "/reply") { $0.contains("\"id\":\"\(id)\"") }
                return try #require(try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any])
            }
            let actions = #"[{"identifier": "motion", "type": "motion", "startStepIdentifier": "walk", "stopStepIdentifier": "walk"}]"#
            let started = try #require(try await call("task.start", #"{"taskIdentifier": "remote", "asyncActions": \#(actions)}"#)["result"] as? [String: Any])
            let uuid = try #require(started["taskRunUUID"] as? String)
            let remoteDirectory = try #require(started["runDirectory"] as? String)
            _ = try await call("step.start", #"{"taskRunUUID": "\#(uuid)", "stepPath": "remote/walk"}"#)
            // The fleet view sees the step at once (a change publishes the status).
            _ = try await pi.retainedStatus { $0.taskRuns?.first?.taskRunUUID.uuidString == uuid && $0.taskRuns?.first?.currentStepPath == "remote/walk" }
            let finished = try await call("step.finish", #"{"taskRunUUID": "\#(uuid)", "stepPath": "remote/walk"}"#)
            #expect((finished["result"] as? [String: Any])?["stoppedRecorders"] as? [String] == ["motion"], "\(finished)")
            let result = try #require(try await call("task.finish", #"{"taskRunUUID": "\#(uuid)"}"#)["result"] as? [String: Any])
            #expect(result["taskRunUUID"] as? String == uuid)
            // The socket's errors, with the request's id.
            let wrong = try await call("step.start", #"{"taskRunUUID": "\#(uuid)", "stepPath": "remote/walk"}"#)
            #expect((wrong["error"] as? [String: Any])?["code"] as? Int == RPCErrorCode.unknownTaskRun.rawValue, "\(wrong)")
            let unknown = try await call("no.such", "{}")
            #expect((unknown["error"] as? [String: Any])?["code"] as? Int == RPCErrorCode.methodNotFound.rawValue)
            let live = try await call("stream.subscribe", #"{"device": "imu0"}"#)
            #expect(((live["error"] as? [String: Any])?["message"] as? String)?.contains("not available over MQTT") == true, "\(live)")
            // Not a request: the socket's parse error, id null.
            try await broker.publish(pi.topics + "/cmd", "{not json")
            let parse = try await pi.message(on: replies, topic: pi.topics + "/reply") { $0.contains("\"id\":null") }
            #expect(parse.contains("\(RPCErrorCode.parseError.rawValue)"), "\(parse)")

            // The same run over the socket.
            let client = try await RecorderClient.connect(socketPath: pi.socket)
            let run = try await client.startTask(identifier: "remote", asyncActions: [
                AsyncActionConfiguration.motion("motion", startStepIdentifier: "walk", stopStepIdentifier: "walk"),
            ])
            _ = try await run.startStep("remote/walk")
            _ = try await pi.retainedStatus { $0.taskRuns?.first?.taskRunUUID == run.taskRunUUID && $0.taskRuns?.first?.currentStepPath == "remote/walk" }
            _ = try await run.finishStep("remote/walk")
            let socketResult = try await run.finish()

            let remoteFiles = try FileManager.default.contentsOfDirectory(atPath: remoteDirectory).sorted()
            let socketFiles = try FileManager.default.contentsOfDirectory(atPath: run.runDirectory).sorted()
            #expect(remoteFiles == socketFiles && remoteFiles.contains("motion.jsonl") && remoteFiles.contains("taskResult.json"), "\(remoteFiles) vs \(socketFiles)")
            let remoteResult = try TaskResult.makeDecoder().decode(TaskResult.self, from: Data(contentsOf: URL(fileURLWithPath: remoteDirectory + "/taskResult.json")))
            #expect(remoteResult.asyncResults.compactMap(\.file?.identifier) == socketResult.asyncResults.compactMap(\.file?.identifier))
            #expect(remoteResult.status == socketResult.status && remoteResult.status == .finished)
            #expect(try Fixtures.records(remoteDirectory + "/motion.jsonl").contains(where: \.isSample))

            // A run started and cancelled at once, most likely between two of the link's looks at
            // the daemon (one a second).
            let quick = try await client.startTask(identifier: "quick", asyncActions: [.motion("motion")])
            _ = try await quick.cancel()
            client.close()

            // The events of the three runs, the end with how each ended.
            for (identifier, how) in [(uuid, "finished"), (socketResult.taskRunUUID.uuidString, "finished"), (quick.taskRunUUID.uuidString, "cancelled")] {
                _ = try await pi.message(on: events, topic: pi.topics + "/events") { $0.contains("taskRunStarted") && $0.contains(identifier) }
                let ended = try await pi.message(on: events, topic: pi.topics + "/events") { $0.contains("taskRunEnded") && $0.contains(identifier) }
                #expect(try JSONDecoder().decode(FleetEvent.self, from: Data(ended.utf8)).status?.rawValue == how, "\(ended)")
            }
            _ = try await replies.stop()
            _ = try await events.stop()
            #expect(try await pi.daemon.stop() == 0)
            try await broker.stop()
        }

        /// mqtts with a test CA: a client certificate of that CA connects; one of another CA is
        /// refused by the broker (and recorderd keeps recording, retrying).
        @Test(.timeLimit(.minutes(2)), .ownThread)
        func tlsWithTheStudyCAConnectsAndAForeignCertificateIsRefused() async throws {
            let certificates = try await TestCertificates.make()
            var broker = try await MosquittoBroker.start(extraConfiguration: certificates.brokerConfiguration)
            broker.clientArguments = certificates.clientArguments
            let tls = { (mqtt: inout MQTTConfiguration) in
                mqtt.tls = MQTTTLSFiles(ca: certificates.ca, certificate: certificates.clientCertificate, key: certificates.clientKey)
            }
            let pi = try await FleetHarness.start(broker: broker, scheme: "mqtts", mqtt: tls)
            let online = try await pi.retainedStatus { $0.state == .online }
            #expect(online.devices?.map(\.name) == ["imu0"])
            let connected = try await pi.linkState(within: 5) { $0.state == .connected }
            #expect(connected.protocolVersion == "5" && connected.broker.hasPrefix("mqtts://"), "\(connected)")
            #expect(try await pi.daemon.stop() == 0)

            let rogueTLS = { (mqtt: inout MQTTConfiguration) in
                mqtt.tls = MQTTTLSFiles(ca: certificates.ca, certificate: certificates.rogueCertificate, key: certificates.rogueKey)
            }
            let rogue = try await FleetHarness.start(broker: broker, scheme: "mqtts", device: "pi-rogue", mqtt: rogueTLS)
            try await rogue.logged("fleet link refused by the broker; retrying")
            let refused = try await rogue.linkState(within: 5) { $0.state == .refused }
            #expect(refused.detail?.hasPrefix("the TLS handshake failed: OpenSSL Error") == true, "\(refused)")
            let client = try await RecorderClient.connect(socketPath: rogue.socket)
            #expect(try await client.status(disk: false).devices.count == 1, "recorderd serves its socket without its broker")
            client.close()
            // Nothing of pi-rogue reached the broker: no retained status (a new subscriber gets none).
            let sub = try await broker.subscriber(rogue.topics + "/status", count: 1, timeout: 2)
            _ = try await sub.wait(timeout: 10)
            #expect(mqttMessages(sub.printed).filter { $0.topic.hasPrefix(rogue.topics) }.isEmpty, "\(sub.printed)")
            #expect(try await rogue.daemon.stop() == 0)
            #expect(broker.log.contains("certificate"), "the broker logged the refused certificate")
            try await broker.stop()
        }

        @Test(.timeLimit(.minutes(2)), .ownThread)
        func withRemoteControlOffCommandsAreIgnoredAndLogged() async throws {
            let broker = try await MosquittoBroker.start()
            let pi = try await FleetHarness.start(broker: broker)
            _ = try await pi.retainedStatus { $0.state == .online }
            let replies = try await pi.readySubscriber(pi.topics + "/reply")
            try await broker.publish(pi.topics + "/cmd", #"{"jsonrpc": "2.0", "id": 1, "method": "task.start", "params": {"taskIdentifier": "x", "asyncActions": []}}"#)
            try await pi.logged("command ignored (mqtt.remoteControl is off)")
            #expect(mqttMessages(replies.printedSoFar()).filter { $0.topic == pi.topics + "/reply" }.isEmpty)
            let client = try await RecorderClient.connect(socketPath: pi.socket)
            #expect(try await client.status(disk: false).taskRuns.isEmpty, "no run was started")
            client.close()
            _ = try await replies.stop()
            #expect(try await pi.daemon.stop() == 0)
            try await broker.stop()
        }
    }
}

extension FleetTests.FleetLinkTests {
    /// `mqtt.live`: the replayed accelerometer at 10 Hz on `live/imu0/accelerometer` and nothing
    /// else under `live/`; every record is a row of the replayed CSV, ten rows apart (the 100 Hz
    /// device decimated), in order.
    @Test(.timeLimit(.minutes(2)), .ownThread)
    func liveRecordsArriveDecimatedOnTheirOwnTopic() async throws {
        let broker = try await MosquittoBroker.start()
        let pi = try await FleetHarness.start(broker: broker, mqtt: { $0.live = [MQTTLiveStream(device: "imu0", sensorTypes: [.accelerometer], rate: 10)] })
        let watcher = try await pi.readySubscriber(pi.topics + "/live/#")
        let topic = pi.topics + "/live/imu0/accelerometer"
        let decoded = { @Sendable (printed: String) -> [Record] in
            mqttMessages(printed).filter { $0.topic == topic }.flatMap {
                (try? JSONDecoder().decode([Record].self, from: Data($0.payload.utf8))) ?? []
            }
        }
        // Each look follows a message (an event).
        _ = try await watcher.printed(where: { decoded($0).count >= 40 }, timeout: 60)
        let records = decoded(watcher.printedSoFar())
        #expect(records.count >= 40, "\(records.count) live records in 60 s: \(watcher.printedSoFar().prefix(2000))\n\(pi.daemon.printedSoFar())")
        let others = Set(mqttMessages(watcher.printedSoFar()).map(\.topic)).subtracting([topic]).filter { $0.contains("/live/") }
        #expect(others.isEmpty, "only the configured sensor type is published: \(others)")
        let rows = try Fixtures.rows(Fixtures.shortWalk)
        var rowOf: [String: [Int]] = [:]
        for (i, row) in rows.enumerated() { rowOf["\(row.acc)", default: []].append(i) }
        var previous: (row: Int, uptime: Double)?
        var intervals: [Double] = []
        for record in records {
            #expect(record.sensorType == "accelerometer" && record.event == nil, "\(record)")
            let candidates = rowOf["\([record.x ?? .nan, record.y ?? .nan, record.z ?? .nan])"] ?? []
            guard !candidates.isEmpty else {
                Issue.record("no CSV row has the live record's acceleration: \(record)")
                continue
            }
            let uptime = try #require(record.uptime)
            let expected = previous.map { ($0.row + 10) % rows.count }
            if let previous, let expected {
                #expect(candidates.contains(expected), "row \(candidates) after row \(previous.row): not one in ten")
                intervals.append(uptime - previous.uptime)
            }
            previous = (expected.flatMap { candidates.contains($0) ? $0 : nil } ?? candidates[0], uptime)
        }
        let median = intervals.sorted()[intervals.count / 2]
        #expect(intervals.allSatisfy { $0 > 0 } && abs(median - 0.1) < 0.01, "uptimes \(median) s apart (median)")
        _ = try await watcher.stop()
        #expect(try await pi.daemon.stop() == 0)
        #expect(!pi.daemon.printed.contains("live stream unavailable"), "\(pi.daemon.printed)")
        try await broker.stop()
    }
}

extension FleetTests.FleetLinkTests {
    /// The protocol each side speaks, as the broker itself logs it (mosquitto's `(p5` for MQTT 5,
    /// `(p2` for 3.1.1): `mqtt.protocol` `auto` (MQTT 5 to a broker that speaks it), `5` and
    /// `3.1.1`; the status, an event and `recorderctl fleet --protocol 3.1.1` work over 3.1.1; a
    /// collector told to share a subscription over 3.1.1 is refused at once, saying what to do.
    @Test(.timeLimit(.minutes(3)), .ownThread)
    func eachProtocolIsSpokenAsConfiguredAndEverythingWorksOver311() async throws {
        let broker = try await MosquittoBroker.start()
        /// The protocol level of `client`'s latest connection in the broker's log.
        func level(_ client: String) -> String? {
            broker.log.split(separator: "\n").last { $0.contains("New client connected") && $0.contains(" as \(client) (") }
                .flatMap { line in line.range(of: " as \(client) (p").map { String(line[$0.upperBound...].prefix(1)) } }
        }
        for (choice, expected) in [(MQTTProtocolChoice.auto, "5"), (.v5, "5"), (.v311, "2")] {
            let pi = try await FleetHarness.start(broker: broker, mqtt: { $0.protocolChoice = choice })
            _ = try await pi.retainedStatus { $0.state == .online && $0.uptimeSeconds ?? 99 < 60 }
            let events = try await pi.readySubscriber(pi.topics + "/events")
            #expect(level("recorderd-lab-pi-1") == expected, "\(choice): \(broker.log.suffix(1500))")
            try await pi.logged("fleet link connected")
            #expect(pi.daemon.printedSoFar().contains("MQTT \(choice == .v311 ? "3.1.1" : "5")"), "\(pi.daemon.printedSoFar())")
            // An event over it: a run's start.
            let client = try await RecorderClient.connect(socketPath: pi.socket)
            let run = try await client.startTask(identifier: "proto", asyncActions: [.motion("motion")])
            _ = try await pi.message(on: events, topic: pi.topics + "/events") { $0.contains(run.taskRunUUID.uuidString) }
            _ = try await run.finish()
            client.close()
            _ = try await events.stop()
            #expect(try await pi.daemon.stop() == 0)
        }
        let fleet = try await Self.recorderctl(["fleet", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--protocol", "3.1.1", "--json"])
        #expect(try JSONValueDecoder().decode([FleetStatus].self, from: Array(fleet.utf8)).map(\.device) == ["pi-1"], "\(fleet)")
        #expect(broker.log.contains(" as recorderctl-fleet-") && broker.log.split(separator: "\n").contains {
            $0.contains(" as recorderctl-fleet-") && $0.contains("(p2,")
        }, "\(broker.log.suffix(1500))")
        // A shared collector over 3.1.1: refused before it connects, with what to do.
        let shared = try await ChildProcess(ChildProcess.executable("recorderctl"), [
            "collect", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--protocol", "3.1.1", "--share", "g", "--dir", try Fixtures.temporaryDirectory()])
        #expect(try await shared.wait(timeout: 30) == 64)
        #expect(shared.printed.contains("--share needs MQTT 5") && shared.printed.contains("--site"), "\(shared.printed)")
        let wrong = try await ChildProcess(ChildProcess.executable("recorderctl"), ["fleet", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--protocol", "4"])
        #expect(try await wrong.wait(timeout: 30) == 64 && wrong.printed.contains("expected \"auto\", \"5\" or \"3.1.1\""), "\(wrong.printed)")
        try await broker.stop()
    }
}

extension FleetTests.FleetLinkTests {
    /// A broker that refuses us (mosquitto with a password file, the Pi's password wrong): the
    /// link logs what the broker answered, once — not at each of libmosquitto's retries (seen in
    /// the broker's log) — and recorderd records on; a collector refused at start exits 69 with the
    /// broker's answer.
    @Test(.timeLimit(.minutes(2)), .ownThread)
    func aBrokerThatRefusesUsIsSaidWithItsAnswerAndTheCollectorExits69() async throws {
        let folder = try Fixtures.temporaryDirectory()
        let passwords = try await ChildProcess("/usr/bin/mosquitto_passwd", ["-c", "-b", folder + "/passwd", "pi-1", "right"])
        #expect(try await passwords.wait(timeout: 30) == 0, "\(passwords.printed)")
        try "wrong\n".write(toFile: folder + "/pi-password", atomically: true, encoding: .utf8)
        let broker = try await MosquittoBroker.start(extraConfiguration: """
            listener $PORT 127.0.0.1
            allow_anonymous false
            password_file \(folder)/passwd

            """)
        let pi = try await FleetHarness.start(broker: broker, mqtt: { $0.username = "pi-1"; $0.passwordFile = folder + "/pi-password" })
        try await pi.logged("fleet link refused by the broker; retrying")
        // daemon.status says so within 5 s, with the broker's answer; recorderctl status prints it.
        let refused = try await pi.linkState(within: 5) { $0.state == .refused }
        #expect(refused.detail?.contains("(CONNACK 13") == true && refused.broker == "mqtt://127.0.0.1:\(broker.port)", "\(refused)")
        let printed = try await Self.recorderctl(["status", "--socket", pi.socket])
        #expect(printed.contains("fleet: refused: ") && printed.contains("(CONNACK 13"), "\(printed)")
        // Three refusals in the broker's log (libmosquitto retries after 1, 2, 4 s): still one line.
        let refusals = { @Sendable (log: String?) in
            (log ?? "").split(separator: "\n").filter { $0.contains("disconnected, not authorised") }.count
        }
        _ = try await FileText.await(broker.directory + "/mosquitto.log", timeout: 60) { refusals($0) >= 3 }
        #expect(refusals(broker.log) >= 3, "\(broker.log.suffix(2000))")
        let lines = pi.daemon.printedSoFar().split(separator: "\n").filter { $0.contains("fleet link refused by the broker") }
        #expect(lines.count == 1 && lines[0].contains("(CONNACK 13"), "\(lines)")
        let client = try await RecorderClient.connect(socketPath: pi.socket)
        #expect(try await client.status(disk: false).devices.count == 1, "recorderd serves its socket")
        client.close()
        #expect(try await pi.daemon.stop() == 0)
        let collector = try await ChildProcess(ChildProcess.executable("recorderctl"), [
            "collect", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--dir", try Fixtures.temporaryDirectory()])
        #expect(try await collector.wait(timeout: 60) == 69)
        #expect(collector.printed.contains("the broker refused the connection: ") && collector.printed.contains("(CONNACK 13"), "\(collector.printed)")
        try await broker.stop()
    }
}

extension FleetTests.FleetLinkTests {
    /// docs/fleet.md's mosquitto ACL, read from the page itself, with a password per Pi (its
    /// device id) and one for the collector: the Pi's status, events and upload go through and
    /// `recorderctl fleet` lists it; a client with pi-1's credentials posing as pi-2 has its
    /// status denied by the broker (its log: "Denied PUBLISH"), and no one sees it.
    @Test(.timeLimit(.minutes(3)), .ownThread)
    func theDocumentedACLLetsEachPiOnlyItsOwnTopics() async throws {
        let readme = try String(contentsOfFile: VMGuest.packageRoot + "/docs/fleet.md", encoding: .utf8)
        let begin = try #require(readme.range(of: "```\n# /etc/mosquitto/acl"))
        let block = readme[begin.upperBound...]
        let acl = String(block[..<(try #require(block.range(of: "```")).lowerBound)])
        let folder = try Fixtures.temporaryDirectory()
        try ("# /etc/mosquitto/acl" + acl).write(toFile: folder + "/acl", atomically: true, encoding: .utf8)
        for (user, password) in [("pi-1", "one"), ("collector", "gather")] {
            let made = try await ChildProcess.run("/usr/bin/mosquitto_passwd", (user == "pi-1" ? ["-c"] : []) + ["-b", folder + "/passwd", user, password])
            #expect(made.status == 0, "\(made.printed)")
            try "\(password)\n".write(toFile: folder + "/\(user).password", atomically: true, encoding: .utf8)
        }
        var broker = try await MosquittoBroker.start(extraConfiguration: """
            listener $PORT 127.0.0.1
            allow_anonymous false
            password_file \(folder)/passwd
            acl_file \(folder)/acl

            """)
        broker.clientArguments = ["-u", "collector", "-P", "gather"]
        // pi-1's credentials, pi-2's topics: denied by the broker, seen by no one.
        _ = try await FleetTests.checkOwnTopicsOnly(broker, passwords: folder, brokerLog: broker.directory + "/mosquitto.log") {
            $0.contains("Denied PUBLISH from recorderd-lab-pi-2") && $0.contains("recorderd/v1/lab/pi-2/status")
        }
        try await broker.stop()
    }
}
