import Foundation
import RecorderClient
import RecorderModel
import RecorderProtocol
import RecorderTestSupport
import Testing

/// The broker tests, one at a time: each starts its own broker, recorderd instances, collectors
/// (fifty MQTT clients in one), and the other suites' real-time tests share the two CPUs with them.
@Suite(.serialized) struct FleetTests {}

/// The real recorderd executable with its fleet link on, a replay device, and a real mosquitto
/// broker; `mosquitto_sub` and `mosquitto_pub` are the independent peers.
struct FleetHarness {
    let daemon: ChildProcess
    let directory: String
    let broker: MosquittoBroker
    let topics: String
    var socket: String { directory + "/control.sock" }
    var dataDirectory: String { directory + "/data" }

    static let site = "lab"
    static let device = "pi-1"

    /// Starts recorderd; `mqtt` members are added to the link's (broker, site, device, keepalive
    /// 5 s); returns once its control socket answers.
    static func start(broker: MosquittoBroker, port: Int? = nil, scheme: String = "mqtt", device: String = device, mqtt extra: String = "",
                      speed: Double = 1, directory chosen: String? = nil) async throws -> FleetHarness {
        let directory = try chosen ?? Fixtures.temporaryDirectory()
        let configuration = """
        {"socket": "\(directory)/control.sock", "dataDirectory": "\(directory)/data",
         "mqtt": {"broker": "\(scheme)://127.0.0.1:\(port ?? broker.port)", "site": "\(site)", "device": "\(device)", "keepalive": 5\(extra)},
         "devices": [{"name": "imu0", "kind": "replay", "file": "\(Fixtures.shortWalk)",
                      "frequency": 100, "columns": {"accelerometer": ["acc_x","acc_y","acc_z"], "gyro": ["gyr_x","gyr_y","gyr_z"]},
                      "units": {"accelerometer": "g", "gyro": "deg/s"}, "speed": \(speed), "loop": true}]}
        """
        try configuration.write(toFile: directory + "/recorderd.json", atomically: true, encoding: .utf8)
        let daemon = try await ChildProcess(ChildProcess.executable("recorderd"), ["--config", directory + "/recorderd.json", "--log-level", "info"])
        try await daemon.connectWhenListening(directory + "/control.sock").close()
        return FleetHarness(daemon: daemon, directory: directory, broker: broker, topics: "recorderd/v1/\(site)/\(device)")
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
