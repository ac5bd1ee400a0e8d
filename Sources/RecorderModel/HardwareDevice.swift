/// A device a backend found on the machine (configured or not), in `devices.list`.
public struct HardwareDevice: Sendable, Codable, Equatable {
    /// The backend kind (`iio`).
    public var kind: String
    /// Where it was found (a libiio URI).
    public var source: String
    /// The backend's id (`iio:device0`); empty when `error` says why nothing could be listed.
    public var id: String
    public var name: String?
    /// Channels that can be recorded (IIO: buffered channels).
    public var channels: [String]?
    /// Sampling rates it offers, in Hz.
    public var rates: [Double]?
    /// Backend-specific facts (current rate, timestamp clock…).
    public var details: [String: String]?
    public var error: String?

    public init(kind: String, source: String, id: String, name: String? = nil, channels: [String]? = nil,
                rates: [Double]? = nil, details: [String: String]? = nil, error: String? = nil) {
        self.kind = kind
        self.source = source
        self.id = id
        self.name = name
        self.channels = channels
        self.rates = rates
        self.details = details
        self.error = error
    }
}
