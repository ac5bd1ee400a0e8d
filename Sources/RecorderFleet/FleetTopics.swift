import FoundationEssentials
import Glibc

/// The topics of one Pi: `{prefix}/{site}/{device}/…`.
public struct FleetTopics: Sendable, Equatable {
    public let base: String

    public init(prefix: String, site: String, device: String) {
        base = "\(prefix)/\(site)/\(device)"
    }

    /// Retained: online (with what the Pi is doing) or offline (the Last Will).
    public var status: String { base + "/status" }
    /// Runs started and ended, device faults (QoS 1).
    public var events: String { base + "/events" }
    /// JSON-RPC requests (when `remoteControl` is on).
    public var command: String { base + "/cmd" }
    /// Their answers, with the request's id.
    public var reply: String { base + "/reply" }
    /// A run's upload: `runs/{uuid}/manifest` and `runs/{uuid}/chunk` (the Pi's), `runs/{uuid}/ack`
    /// (the collector's).
    public func run(_ run: UUID) -> String { "\(base)/runs/\(run.uuidString)" }
    /// A device's live records of one sensor type (QoS 0, decimated; `mqtt.live`).
    public func live(device: String, sensorType: String) -> String { "\(base)/live/\(device)/\(sensorType)" }
    /// Where a fleet view asks every Pi under `prefix` for its status (`recorderctl fleet`), each
    /// answering by publishing it again: for brokers that give retained messages to exact topics
    /// only (RabbitMQ 3.10), where a view's `+/+/status` gets none.
    public static func statusRequest(prefix: String) -> String { prefix + "/_request/status" }

    /// Every run's acknowledgements (the Pi subscribes).
    public var acknowledgements: String { base + "/runs/+/ack" }
}
