import Foundation
import RecorderClient
import RecorderConfiguration
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
        /// refused at start, saying what to do instead.
        @Test(.timeLimit(.minutes(5)))
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
            #expect(broker.log.contains("MQTT cannot parse a frame"), "RabbitMQ refused MQTT 5: \(broker.log.suffix(2000))")
            // RabbitMQ 3.10 gives retained messages to exact topics only: `recorderctl fleet`'s
            // `+/+/status` gets the Pi's answer to its status request.
            let fleet = try await FleetTests.FleetLinkTests.recorderctl(["fleet", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--json"])
            let listed = try JSONDecoder().decode([FleetStatus].self, from: Data(fleet.utf8))
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
            #expect(try await pi.daemon.stop() == 0)
            _ = try await collector.stop()
            try await broker.stop()
        }
    }
}
