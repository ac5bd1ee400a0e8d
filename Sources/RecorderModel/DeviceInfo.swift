/// One device in `devices.list` and `daemon.status`.
public struct DeviceInfo: Sendable, Codable, Equatable {
    public var name: String
    public var kind: String
    public var state: DeviceState
    /// The raw sensors it measures.
    public var sensorTypes: [SensorType]
    /// The fused device-motion types it can add (accelerometer and gyroscope devices).
    public var fusedTypes: [SensorType]?
    /// Sampling rate in Hz.
    public var rate: Double?
    public var rates: [Double]?
    public var error: String?
    /// Backend-specific details (file, URI, channels…).
    public var details: [String: String]?
    public var users: Int?

    public init(name: String, kind: String, state: DeviceState, sensorTypes: [SensorType], fusedTypes: [SensorType]? = nil,
                rate: Double? = nil, rates: [Double]? = nil, error: String? = nil, details: [String: String]? = nil, users: Int? = nil) {
        self.name = name
        self.kind = kind
        self.state = state
        self.sensorTypes = sensorTypes
        self.fusedTypes = fusedTypes
        self.rate = rate
        self.rates = rates
        self.error = error
        self.details = details
        self.users = users
    }
}
