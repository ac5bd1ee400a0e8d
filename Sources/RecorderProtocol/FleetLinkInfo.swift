/// `daemon.status`'s `services.fleet`: the fleet link's connection to its broker, as the services
/// process last reported it (`recorderctl status`: `fleet: refused: …`).
public struct FleetLinkInfo: Sendable, Codable, Equatable {
    /// Where the link stands.
    public enum State: String, Sendable, Codable, Equatable {
        /// Started, no answer from the broker yet.
        case connecting
        /// The broker accepted the link.
        case connected
        /// The broker refused the link (protocol, credentials, authorisation, certificate): a
        /// configuration to mend; the link keeps trying.
        case refused
        /// The link dropped or the broker cannot be reached; it keeps trying.
        case down
    }

    public var state: State
    /// The broker's URL (`mqtt.broker`).
    public var broker: String
    /// The protocol spoken, `5` or `3.1.1` (what was tried last when not connected).
    public var protocolVersion: String?
    /// What the broker answered (refused: its CONNACK, or the TLS error), or why the link is down.
    public var detail: String?
    /// When this state began (ISO 8601, the Pi's clock).
    public var since: String?

    public init(state: State, broker: String, protocolVersion: String? = nil, detail: String? = nil, since: String? = nil) {
        self.state = state
        self.broker = broker
        self.protocolVersion = protocolVersion
        self.detail = detail
        self.since = since
    }

    /// The line `recorderctl status` prints after `fleet: `.
    public var summary: String {
        var text = state.rawValue
        if let detail, !detail.isEmpty { text += ": " + detail }
        text += " (\(broker)"
        if let protocolVersion { text += ", MQTT \(protocolVersion)" }
        text += ")"
        if let since { text += " since \(since)" }
        return text
    }
}
