import RecorderJSON
import RecorderModel

/// One entry of `mqtt.live`: a device's live records published on
/// `{prefix}/{site}/{device}/live/{deviceName}/{sensorType}` at QoS 0, decimated to `rate`.
///
/// ```json
/// "live": [{"device": "imu0", "sensorTypes": ["accelerometer", "attitude"], "rate": 5}]
/// ```
public struct MQTTLiveStream: Sendable, Equatable, Codable {
    /// The recorderd device whose records are published (a `devices[].name`).
    public var device: String
    /// The sensor types published (nil: every type the device gives).
    public var sensorTypes: [SensorType]?
    /// Records per second per sensor type (the daemon's `stream.subscribe` decimation).
    public var rate: Double = 10

    /// Rates a live topic may have: a dashboard's, not a recording's (recordings are uploaded).
    public static let rateRange = NumberRange(atLeast: 0.01, atMost: 100, "records per second")
    /// Entries `mqtt.live` may have.
    public static let maximumCount = 32

    enum CodingKeys: String, CodingKey, CaseIterable { case device, sensorTypes, rate }

    public init(device: String, sensorTypes: [SensorType]? = nil, rate: Double = 10) {
        self.device = device
        self.sensorTypes = sensorTypes
        self.rate = rate
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        device = try c.decode(String.self, forKey: .device)
        guard MQTTConfiguration.isTopicLevel(device) else {
            throw DecodingError.dataCorruptedError(forKey: .device, in: c, debugDescription: "expected a device name: 1 to 64 of A-Z a-z 0-9 . _ -")
        }
        sensorTypes = try c.decodeIfPresent([SensorType].self, forKey: .sensorTypes)
        if let sensorTypes, sensorTypes.isEmpty {
            throw DecodingError.dataCorruptedError(forKey: .sensorTypes, in: c, debugDescription: "expected at least one sensor type (absent: all)")
        }
        rate = try c.decodeIfPresent(Double.self, forKey: .rate, in: Self.rateRange) ?? rate
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(device, forKey: .device)
        try c.encodeIfPresent(sensorTypes, forKey: .sensorTypes)
        try c.encode(rate, forKey: .rate)
    }
}
