/// Why an MQTT call failed.
public enum MQTTClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not connected to the broker now (libmosquitto reconnects in the background).
    case notConnected
    /// libmosquitto refused a call: what was asked, and its reason.
    case library(String, String)

    public var description: String {
        switch self {
        case .notConnected: "not connected to the MQTT broker"
        case .library(let what, let why): "MQTT \(what): \(why)"
        }
    }
}
