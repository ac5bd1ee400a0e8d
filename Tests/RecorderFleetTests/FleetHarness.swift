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
    let broker: MosquittoBroker
    let topics: String

    static let site = "lab"
    static let device = "pi-1"

    /// Starts recorderd with its fleet link to `broker` (site, device, keepalive 5 s; `mqtt` sets
    /// the rest); returns once it is ready.
    static func start(broker: MosquittoBroker, port: Int? = nil, scheme: String = "mqtt", device: String = device,
                      mqtt configure: (inout MQTTConfiguration) -> Void = { _ in },
                      speed: Double = 1, directory chosen: String? = nil) async throws -> FleetHarness {
        var configuration = try TestConfiguration(directory: chosen, speed: speed)
        try configuration.fleet(broker: "\(scheme)://127.0.0.1:\(port ?? broker.port)", site: site, device: device, configure)
        let recorderd = try await TestDaemon.start(.executable(logLevel: "info"), configuration)
        return FleetHarness(recorderd: recorderd, broker: broker, topics: "recorderd/v1/\(site)/\(device)")
    }

    struct HarnessError: Error, CustomStringConvertible { let description: String }

    /// The retained status as a new subscriber gets it from the broker, once `predicate` holds
    /// (looked at again until `timeout` s).
    func retainedStatus(timeout: Double = 30, _ predicate: (FleetStatus) -> Bool) async throws -> FleetStatus {
        let deadline = Deadline(seconds: timeout)
        var last = "nothing"
        while !deadline.hasPassed {
            let sub = try await broker.subscriber(topics + "/status", count: 1, timeout: 2)
            _ = try await sub.wait(timeout: 10)
            if let message = mqttMessages(sub.printed).first {
                last = message.payload
                if let status = try? JSONDecoder().decode(FleetStatus.self, from: Data(message.payload.utf8)), predicate(status) { return status }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError(description: "the retained status never matched; last: \(last)\nrecorderd: \(daemon.printedSoFar())")
    }

    /// A subscriber to `topic` that is known to be subscribed: it has received a probe published
    /// after it started.
    func readySubscriber(_ topic: String, timeout: Int = 120) async throws -> ChildProcess {
        let probe = "test/probe/\(UUID().uuidString)"
        let sub = try await broker.subscriber(topic, timeout: timeout, arguments: ["-t", probe])
        let deadline = Deadline(seconds: 60)
        while !deadline.hasPassed {
            try await broker.publish(probe, "probe")
            if sub.printedSoFar().contains(probe) { return sub }
            try await Task.sleep(for: .milliseconds(100))
        }
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
}
