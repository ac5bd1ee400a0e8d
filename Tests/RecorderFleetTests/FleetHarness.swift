import Foundation
import RecorderClient
import RecorderConfiguration
import RecorderModel
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
                      speed: Double = 1, directory chosen: String? = nil) async throws -> FleetHarness {
        var configuration = try TestConfiguration(directory: chosen, speed: speed)
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
                .compactMap { try? JSONDecoder().decode(FleetStatus.self, from: Data($0.payload.utf8)) }.first(where: predicate)
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

    /// The fleet link's state in `daemon.status` once `predicate` holds. A state with no event
    /// to wait on from here: looked at every 0.1 s, at most `within` seconds (the bound
    /// for a refusal to show).
    func linkState(within seconds: Double, _ predicate: @Sendable (FleetLinkInfo) -> Bool) async throws -> FleetLinkInfo {
        let client = try await RecorderClient.connect(socketPath: socket)
        defer { client.close() }
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var seen: FleetLinkInfo?
        while true {
            seen = try await client.status(disk: false).services?.fleet
            if let seen, predicate(seen) { return seen }
            if ContinuousClock.now > deadline { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError(description: "daemon.status's fleet link never matched within \(seconds) s; last: \(String(describing: seen))\nrecorderd: \(daemon.printedSoFar())")
    }
}
