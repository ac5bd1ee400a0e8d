import Foundation
import RecorderClient
import RecorderConfiguration
import RecorderModel
import RecorderJSON
import RecorderProtocol
import RecorderTestSupport
import Testing

/// The broker tests, one at a time: each starts its own broker, recorderd instances, collectors
/// (fifty MQTT clients in one), and the other suites' real-time tests share the two CPUs with them.
@Suite(.serialized) struct FleetTests {}

/// The real recorderd executable with its fleet link on, a replay device, and a real mosquitto
/// broker; `mosquitto_sub` and `mosquitto_pub` are the independent peers.
struct FleetHarness: RecorderdHarness {
    let recorderd: TestDaemon
    let broker: any TestBroker
    let topics: String

    static let site = "lab"
    static let device = "pi-1"

    /// Starts recorderd with its fleet link to `broker` (site, device, keepalive 5 s; `mqtt` sets
    /// the rest); returns once it is ready.
    static func start(broker: any TestBroker, port: Int? = nil, scheme: String = "mqtt", device: String = device,
                      mqtt configure: (inout MQTTConfiguration) -> Void = { _ in },
                      speed: Double = 1, directory chosen: String? = nil, clock: ClockConfiguration? = nil) async throws -> FleetHarness {
        var configuration = try TestConfiguration(directory: chosen, speed: speed)
        if let clock { configuration.daemon.clock = clock }
        try configuration.fleet(broker: "\(scheme)://127.0.0.1:\(port ?? broker.port)", site: site, device: device, configure)
        let recorderd = try await TestDaemon.start(.executable(logLevel: "info"), configuration)
        return FleetHarness(recorderd: recorderd, broker: broker, topics: "recorderd/v1/\(site)/\(device)")
    }

    struct HarnessError: Error, CustomStringConvertible { let description: String }

    /// The status as a subscriber gets it from the broker (the retained one first, then each
    /// update), once `predicate` holds: each look follows a message (an event).
    func retainedStatus(timeout: Double = 30, _ predicate: @escaping @Sendable (FleetStatus) -> Bool) async throws -> FleetStatus {
        let topic = topics + "/status"
        let sub = try await broker.subscriber(topic, timeout: Int(timeout.rounded(.up)) + 5)
        let matching = { @Sendable (text: String) -> FleetStatus? in
            mqttMessages(text).lazy.filter { $0.topic == topic }
                .compactMap { try? JSONValueDecoder().decode(FleetStatus.self, from: Array($0.payload.utf8)) }.first(where: predicate)
        }
        let text = try await sub.printed(where: { matching($0) != nil }, timeout: timeout)
        _ = try? await sub.stop()
        if let text, let status = matching(text) { return status }
        throw HarnessError(description: "the status never matched; seen: \(sub.printedSoFar())\nrecorderd: \(daemon.printedSoFar())")
    }

    /// A subscriber to `topic` that is known to be subscribed: the broker acknowledged its
    /// subscription (its SUBACK, which `mosquitto_sub -d` prints).
    func readySubscriber(_ topic: String, timeout: Int = 120) async throws -> ChildProcess {
        let sub = try await broker.subscriber(topic, timeout: timeout, arguments: ["-d"])
        if try await sub.printed(where: { $0.contains("Subscribed (mid") }, timeout: 60) != nil { return sub }
        throw HarnessError(description: "mosquitto_sub did not subscribe: \(sub.printedSoFar())")
    }

    /// Waits until `subscriber` has printed a message on `topic` whose payload satisfies `predicate`.
    func message(on subscriber: ChildProcess, topic: String, timeout: Double = 30, _ predicate: @escaping @Sendable (String) -> Bool) async throws -> String {
        let matching = { @Sendable (text: String) in mqttMessages(text).first(where: { $0.topic == topic && predicate($0.payload) }) }
        if let text = try await subscriber.printed(where: { matching($0) != nil }, timeout: timeout), let m = matching(text) { return m.payload }
        throw HarnessError(description: "no matching message on \(topic): \(subscriber.printedSoFar())\nrecorderd: \(daemon.printedSoFar())")
    }

    /// Waits until recorderd has logged `text`.
    func logged(_ text: String, timeout: Double = 30) async throws {
        if try await daemon.printed(where: { $0.contains(text) }, timeout: timeout) != nil { return }
        throw HarnessError(description: "recorderd did not log \(text.debugDescription): \(daemon.printedSoFar())")
    }

    /// The fleet link's state in `daemon.status` once `predicate` holds: looked at now, then
    /// after each state recorderd logs taking from the services process ("fleet link state"),
    /// at most `within` seconds in all (the bound for a refusal to show).
    func linkState(within seconds: Double, _ predicate: @escaping @Sendable (FleetLinkInfo) -> Bool) async throws -> FleetLinkInfo {
        let client = try await RecorderClient.connect(socketPath: socket)
        defer { client.close() }
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let reports = { @Sendable (text: String) in text.components(separatedBy: "fleet link state").count - 1 }
        var seen: FleetLinkInfo?
        while true {
            let before = reports(daemon.printedSoFar())
            seen = try await client.status(disk: false).services?.fleet
            if let seen, predicate(seen) { return seen }
            let left = Double((deadline - ContinuousClock.now) / .milliseconds(1)) / 1000
            guard left > 0, try await daemon.printed(where: { reports($0) > before }, timeout: left) != nil else { break }
        }
        throw HarnessError(description: "daemon.status's fleet link never matched within \(seconds) s; last: \(String(describing: seen))\nrecorderd: \(daemon.printedSoFar())")
    }
}

extension FleetTests {
    /// How a broker's permission recipe is checked, once the broker runs with it and the
    /// passwords are in `folder` (`pi-1.password`, `collector.password`): a collector and a Pi
    /// (pi-1) with their own credentials, its status online, a run uploaded byte for byte and acknowledged,
    /// `recorderctl fleet` as the collector listing pi-1; then a client with pi-1's password
    /// posing as pi-2, whose refusal the broker writes to `brokerLog` (`denied`), and which no one
    /// sees. Returns the Pi's link state when connected.
    static func checkOwnTopicsOnly(_ broker: any TestBroker, passwords folder: String, brokerLog: String,
                                   denied: @escaping @Sendable (String) -> Bool) async throws -> FleetLinkInfo {
        let credentials = ["--username", "collector", "--password-file", folder + "/collector.password"]
        let piCredentials = { (mqtt: inout MQTTConfiguration) in
            mqtt.username = "pi-1"
            mqtt.passwordFile = folder + "/pi-1.password"
        }
        let root = try Fixtures.temporaryDirectory()
        let collector = try await RunUploadTests.collector(broker, root, arguments: credentials)
        let pi = try await FleetHarness.start(broker: broker, mqtt: piCredentials, speed: 10)
        let connected = try await pi.linkState(within: 60) { $0.state == .connected }
        _ = try await pi.retainedStatus(timeout: 60) { $0.state == .online }
        let (run, directory) = try await RunUploadTests.recordRun(pi, bytes: 300_000)
        let copy = try await RunUploadTests.collected(root, runDirectory: directory, while: [collector, pi.daemon])
        try await RunUploadTests.expectIdentical(directory, copy)
        try await RunUploadTests.acknowledged(pi, run)
        let fleet = try await FleetLinkTests.recorderctl(["fleet", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--json"] + credentials)
        #expect(fleet.contains("\"pi-1\""), "\(fleet)")
        let rogue = try await FleetHarness.start(broker: broker, device: "pi-2", mqtt: piCredentials)
        let refused = try await FileText.await(brokerLog, timeout: 60) { denied($0 ?? "") }
        #expect(refused != nil, "\(((try? String(contentsOfFile: brokerLog, encoding: .utf8)) ?? "").suffix(3000))")
        let seen = try await FleetLinkTests.recorderctl(["fleet", "--broker", "mqtt://127.0.0.1:\(broker.port)", "--json"] + credentials)
        #expect(!seen.contains("\"pi-2\"") && seen.contains("\"pi-1\""), "\(seen)")
        #expect(try await rogue.daemon.stop() == 0)
        #expect(try await pi.daemon.stop() == 0)
        _ = try await collector.stop()
        return connected
    }
}
