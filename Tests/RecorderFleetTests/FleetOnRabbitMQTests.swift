import Foundation
import RecorderClient
import RecorderConfiguration
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderTestSupport
import Testing

extension FleetTests {
    /// The fleet on RabbitMQ's MQTT plugin (Debian 12's rabbitmq-server 3.10: MQTT 3.1.1 only; it
    /// closes the connection on a CONNECT of MQTT 5 — "MQTT cannot parse a frame" in its log —
    /// where recorderd used to reconnect for ever), with everything left at `auto`.
    @Suite(.enabled(if: RabbitMQBroker.testsEnabled("FleetOnRabbitMQTests"), "needs rabbitmq-server and mosquitto (scripts/setup.sh)"))
    struct FleetOnRabbitMQTests {
        /// The Pi falls back to 3.1.1 and says so; its retained status is online for mosquitto's
        /// own subscriber, and `recorderctl fleet` lists it (its answer to the view's request); a
        /// run's events arrive; the run is uploaded to a
        /// collector (which fell back too) byte for byte and acknowledged; a shared collector is
        /// refused at start, saying what to do instead; a Pi told to speak MQTT 5 is refused, and
        /// `daemon.status` says why.
        @Test(.timeLimit(.minutes(5)), .ownThread)
        func withAutoEverythingFallsBackTo311AndWorks() async throws {
            let broker = try await RabbitMQBroker.start()
            let root = try Fixtures.temporaryDirectory()
            let collector = try await RunUploadTests.collector(broker, root)
            #expect(collector.printedSoFar().contains("over MQTT 3.1.1"), "\(collector.printedSoFar())")
            #expect(collector.printedSoFar().contains("the broker closed the connection to MQTT 5 without an answer"), "\(collector.printedSoFar())")
            let pi = try await FleetHarness.start(broker: broker, speed: 10)
            let online = try await pi.retainedStatus(timeout: 60) { $0.state == .online }
            #expect(online.device == "pi-1", "\(online)")
            try await pi.logged("fleet link: the broker closed the connection to MQTT 5 without an answer")
            try await pi.logged("MQTT 3.1.1")
            // RabbitMQ writes its log in its own time: waited for.
            let parsed = try await FileText.await(broker.directory + "/rabbit.log", timeout: 60) { ($0 ?? "").contains("MQTT cannot parse a frame") }
            #expect(parsed != nil, "RabbitMQ refused MQTT 5: \(broker.log.suffix(2000))")
            // RabbitMQ 3.10 gives retained messages to exact topics only: `recorderctl fleet`'s
            // `+/+/status` gets the Pi's answer to its status request.
            let fleet = try await FleetTests.FleetLinkTests.recorderctl(["fleet", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--json"])
            let listed = try JSONValueDecoder().decode([FleetStatus].self, from: Array(fleet.utf8))
            #expect(listed.map(\.device) == ["pi-1"] && listed.first?.state == .online, "\(fleet)")
            let events = try await pi.readySubscriber(pi.topics + "/events")
            let (run, directory) = try await RunUploadTests.recordRun(pi, bytes: 300_000)
            _ = try await pi.message(on: events, topic: pi.topics + "/events") { $0.contains(run.uuidString) && $0.contains("taskRunEnded") }
            let copy = try await RunUploadTests.collected(root, runDirectory: directory, while: [collector, pi.daemon])
            try await RunUploadTests.expectIdentical(directory, copy)
            try await RunUploadTests.acknowledged(pi, run)
            // Collectors sharing a subscription: MQTT 5 only.
            let shared = try await ChildProcess(ChildProcess.executable("recorderctl"), [
                "collect", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--share", "g", "--dir", try Fixtures.temporaryDirectory()])
            #expect(try await shared.wait(timeout: 60) == 64)
            #expect(shared.printed.contains("--share needs MQTT 5") && shared.printed.contains("this broker speaks MQTT 3.1.1")
                && shared.printed.contains("--site"), "\(shared.printed)")
            _ = try await events.stop()
            // A Pi told to speak MQTT 5 only: refused, in daemon.status within 5 s, saying what to set.
            let five = try await FleetHarness.start(broker: broker, device: "pi-5", mqtt: { $0.protocolChoice = .v5 })
            try await five.logged("fleet link refused by the broker; retrying")
            let refused = try await five.linkState(within: 5) { $0.state == .refused }
            #expect(refused.detail?.contains("without an answer") == true && refused.detail?.contains("\"3.1.1\"") == true
                && refused.protocolVersion == "5", "\(refused)")
            #expect(try await five.daemon.stop() == 0)
            let fallen = try await pi.linkState(within: 5) { $0.state == .connected }
            #expect(fallen.protocolVersion == "3.1.1", "\(fallen)")
            #expect(try await pi.daemon.stop() == 0)
            _ = try await collector.stop()
            try await broker.stop()
        }

        /// A three-node RabbitMQ cluster (`rabbitmqctl join_cluster`) with docs/fleet.md's users (made
        /// on one node, the cluster's), the Pi configured with all
        /// three nodes and connected to the first, the collector to the third: the first node is
        /// killed (SIGKILL of its Erlang VM) halfway through an upload. The Pi moves to the next
        /// node and says so in `daemon.status`; the run arrives byte for byte and is acknowledged;
        /// the chunk bytes the Pi sent are at most one window of chunks (8 of 256 KiB) more than
        /// the files' size; `recorderctl fleet` against the surviving third node lists the Pi
        /// online (the status it published again on its new node).
        ///
        /// The Pi's fleet link is held still (SIGSTOP of its process) from just before the kill
        /// until a survivor has logged RabbitMQ's clean-up after the dead node (its queues dropped
        /// from the table of live ones), so the Pi's reconnection always comes after it. That
        /// order, which chance made in one local run of ten, left the Pi refused for as long as the
        /// node stayed down while it subscribed at QoS 1 (`FleetAgent.subscriptionQoS`).
        @Test(.timeLimit(.minutes(10)), .ownThread)
        func aNodeKilledMidUploadCostsOnlyTheChunksInFlight() async throws {
            let cluster = try await RabbitMQCluster.start()
            let (first, third) = (cluster.nodes[0], cluster.nodes[2])
            let urls = cluster.nodes.map { "mqtt://127.0.0.1:\($0.port)" }
            // docs/fleet.md's users, made on the first node: the cluster's.
            let folder = try await Self.readmeUsers(on: first)
            let credentials = ["--username", "collector", "--password-file", folder + "/collector.password"]
            let root = try Fixtures.temporaryDirectory()
            let collector = try await RunUploadTests.collector(third, root, arguments: credentials)
            let pi = try await FleetHarness.start(broker: first, mqtt: { mqtt in
                mqtt.username = "pi-1"
                mqtt.passwordFile = folder + "/pi-1.password"
                mqtt.nodes = cluster.nodes.map { MQTTBrokerNode(url: "mqtt://127.0.0.1:\($0.port)", host: "127.0.0.1", port: $0.port) }
                mqtt.broker = urls[0]
                mqtt.uploadBandwidth = 200_000
            }, speed: 10)
            let connected = try await pi.linkState(within: 60) { $0.state == .connected }
            #expect(connected.broker == urls[0], "\(connected)")
            let (run, directory) = try await RunUploadTests.recordRun(pi, bytes: 3_000_000)
            // Halfway (a third of the motion file at the collector): the Pi's node dies.
            try await RunUploadTests.collectorHolds(root, run, atLeast: 1_000_000)
            let services = try #require(Self.servicesPID(pi.daemon.printedSoFar()), "no services process in the Pi's log")
            kill(services, SIGSTOP)
            kill(first.node.pid, SIGKILL)
            let cleaned = "transient queues from an old incarnation of node '\(first.nodeName)' deleted"
            let survivors = Array(cluster.nodes.dropFirst())
            let seen = try? await FileText.until(inDirectory: survivors[0].directory, timeout: 60) { survivors.contains { $0.log.contains(cleaned) } }
            kill(services, SIGCONT)
            #expect(seen == true, "no survivor logged its clean-up after the dead node")
            _ = try await first.node.wait(timeout: 60)
            let copy: String
            do {
                let moved = try await pi.linkState(within: 120) { $0.state == .connected && $0.broker != urls[0] }
                #expect(urls.dropFirst().contains(moved.broker), "a surviving node: \(moved)")
                // The first disconnection is the dead node's and names it (the network thread was
                // already trying the next node when the link heard of it: it named that one).
                let down = pi.daemon.printedSoFar().split(separator: "\n").first { $0.contains("fleet link down") }
                #expect(down?.contains("broker=\(urls[0]) ") == true, "\(String(describing: down))")
                copy = try await RunUploadTests.collected(root, runDirectory: directory, timeout: 240, while: [collector, pi.daemon])
            } catch {
                print("FLEET cluster after the kill, failed: \(await cluster.describeQueues())")
                throw error
            }
            try await RunUploadTests.expectIdentical(directory, copy)
            try await RunUploadTests.acknowledged(pi, run)
            // What the resumption cost: the Pi's account when the run was acknowledged.
            let line = try #require(pi.daemon.printedSoFar().split(separator: "\n").last { $0.contains("fleet upload: run acknowledged") })
            func field(_ name: String) -> Int? {
                guard let range = line.range(of: name + "=") else { return nil }
                return Int(line[range.upperBound...].prefix { $0.isNumber })
            }
            let (bytes, sent) = (try #require(field("bytes")), try #require(field("chunkBytesSent")))
            print("FLEET cluster: run of \(bytes) bytes; chunk bytes sent \(sent) (\(sent - bytes) resent) with node 1 of 3 killed midway")
            #expect(sent >= bytes && sent <= bytes + 8 * 256 * 1024, "\(line)")
            let fleet = try await FleetTests.FleetLinkTests.recorderctl(["fleet", "--broker", urls[2], "--json"] + credentials)
            let listed = try JSONValueDecoder().decode([FleetStatus].self, from: Array(fleet.utf8))
            #expect(listed.map(\.device) == ["pi-1"] && listed.first?.state == .online, "\(fleet)")
            #expect(try await pi.daemon.stop() == 0)
            _ = try await collector.stop()
            try await cluster.stop()
        }

        /// docs/fleet.md's RabbitMQ users and permissions, run as written (`lab`/`pi-1` for
        /// `clinic-a`/`pi-07`): the Pi's status and upload go through as its own user and
        /// `recorderctl fleet` as the collector lists it; a client with pi-1's password posing as
        /// pi-2 is refused its status (RabbitMQ's log) and seen by no one.
        @Test(.timeLimit(.minutes(5)), .ownThread)
        func theDocumentedRabbitMQPermissionsLetEachPiOnlyItsOwnTopics() async throws {
            let broker = try await RabbitMQBroker.start()
            let folder = try await Self.readmeUsers(on: broker)
            // pi-1's password, pi-2's topics.
            let connected = try await FleetTests.checkOwnTopicsOnly(broker, passwords: folder, brokerLog: broker.directory + "/rabbit.log") {
                $0.contains("access to topic 'recorderd.v1.lab.pi-2.") && $0.contains("refused for user 'pi-1'")
            }
            #expect(connected.protocolVersion == "3.1.1")
            try await broker.stop()
        }

        /// Runs docs/fleet.md's `rabbitmqctl` lines on `broker` (`lab`/`pi-1` for `clinic-a`/`pi-07`);
        /// returns the folder of the passwords (`pi-1.password`, `collector.password`).
        static func readmeUsers(on broker: RabbitMQBroker) async throws -> String {
            let readme = try String(contentsOfFile: VMGuest.packageRoot + "/docs/fleet.md", encoding: .utf8)
            let begin = try #require(readme.range(of: "```\n# RabbitMQ: a Pi"))
            let block = readme[begin.upperBound...]
            let commands = block[..<(try #require(block.range(of: "```")).lowerBound)].split(separator: "\n").filter { $0.hasPrefix("rabbitmqctl ") }
            #expect(commands.count == 6)
            for command in commands {
                let text = command.replacingOccurrences(of: "clinic-a", with: "lab").replacingOccurrences(of: "pi-07", with: "pi-1")
                    .replacingOccurrences(of: "'the password in its passwordFile'", with: "one").replacingOccurrences(of: "'the collector password'", with: "gather")
                let (status, printed) = try await broker.control(Array(Self.shellWords(String(text)).dropFirst()))
                #expect(status == 0, "\(text): \(printed)")
            }
            let folder = try Fixtures.temporaryDirectory()
            try "one\n".write(toFile: folder + "/pi-1.password", atomically: true, encoding: .utf8)
            try "gather\n".write(toFile: folder + "/collector.password", atomically: true, encoding: .utf8)
            return folder
        }

        /// The PID of recorderd's services process (the fleet link), from its log line.
        static func servicesPID(_ log: String) -> pid_t? {
            guard let line = log.split(separator: "\n").last(where: { $0.contains("services process started") }),
                  let range = line.range(of: "pid=") else { return nil }
            return pid_t(line[range.upperBound...].prefix { $0.isNumber })
        }

        /// A shell line's words: split at spaces outside single quotes, the quotes removed.
        static func shellWords(_ line: String) -> [String] {
            var words: [String] = [], word = "", quoted = false, started = false
            for c in line {
                if c == "'" {
                    quoted.toggle()
                    started = true
                } else if c == " ", !quoted {
                    if started { words.append(word) }
                    (word, started) = ("", false)
                } else {
                    word.append(c)
                    started = true
                }
            }
            if started { words.append(word) }
            return words
        }
    }
}
