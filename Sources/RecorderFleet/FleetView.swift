import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderProtocol

/// The fleet as the broker holds it: every Pi's retained status under a topic prefix
/// (`recorderctl fleet`).
public enum FleetView {
    /// Why the fleet could not be read.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Connects, subscribes to `{prefix}/+/+/status`, and returns the statuses the broker holds
    /// and those the Pis publish when asked (`FleetTopics.statusRequest`). All retained messages
    /// have arrived when a probe published after subscribing does (the broker delivers one
    /// client's messages in order); the Pis' answers are taken for `answerWindow` s more. A broker
    /// that gives retained messages to exact topics only (RabbitMQ 3.10) shows the Pis connected:
    /// their answers; an offline Pi's Will is not seen there.
    public static func statuses(options: MQTTClient.Options, prefix: String, site: String? = nil, timeout: Double = 10,
                                answerWindow: Double = 1) async throws -> [FleetStatus] {
        let client = try MQTTClient(options: options)
        defer { client.stop() }
        let probe = "\(prefix)/_probe/\(UUID().uuidString)"
        client.start()
        return try await withThrowingTaskGroup(of: [FleetStatus].self) { group in
            group.addTask {
                for await event in client.events {
                    switch event.event {
                    case .connected:
                        try client.subscribe("\(prefix)/\(site ?? "+")/+/status", qos: 1)
                        try client.subscribe(probe, qos: 1)
                        // Every Pi connected publishes its status again (for brokers that give
                        // retained messages to exact topics only).
                        try client.publish(topic: FleetTopics.statusRequest(prefix: prefix), payload: [], qos: 1)
                        try client.publish(topic: probe, payload: [], qos: 1)
                        var statuses: [String: FleetStatus] = [:]
                        var probed = false
                        for await message in client.messages {
                            if message.topic == probe {
                                probed = true
                                break
                            }
                            if let status = try? JSONValueDecoder().decode(FleetStatus.self, from: message.payload) { statuses[message.topic] = status }
                        }
                        guard probed else { throw Failure(description: "the connection to \(options.host):\(options.port) ended") }
                        // The Pis' answers to the request, for `answerWindow` s.
                        let window = Task {
                            try? await Task.sleep(for: .seconds(answerWindow))
                            client.stop()
                        }
                        for await message in client.messages {
                            if let status = try? JSONValueDecoder().decode(FleetStatus.self, from: message.payload) { statuses[message.topic] = status }
                        }
                        window.cancel()
                        return statuses.values.sorted { ($0.site, $0.device) < ($1.site, $1.device) }
                    case .refused(let why):
                        throw Failure(description: "the broker \(options.host):\(options.port) refused the connection: \(why)")
                    case .disconnected, .protocolFallback:
                        continue
                    }
                }
                throw Failure(description: "the connection to \(options.host):\(options.port) ended")
            }
            group.addTask {
                try await Task.sleep(for: .seconds(timeout))
                throw Failure(description: "no answer from the broker \(options.host):\(options.port) within \(Int(timeout)) s")
            }
            defer { group.cancelAll() }
            return try await group.next() ?? []
        }
    }
}
