/// The state of a configured device.
public enum DeviceState: String, Sendable, Codable {
    /// Opened and idle: nothing needs it.
    case available
    /// Sampling for at least one recording or subscriber.
    case sampling
    /// Could not be opened or failed; retried.
    case unavailable
}
