import RecorderModel

/// A `gpsd` device: `{"name":"gps0","kind":"gpsd","host":"127.0.0.1","port":2947,"gpsDevice":null}`.
public struct GPSDConfiguration: Sendable, Equatable, Decodable {
    public var name: String
    public var host: String
    public var port: Int
    /// Watch only this receiver (its path, e.g. `/dev/ttyACM0`); nil: every receiver.
    public var gpsDevice: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case name, host, port, gpsDevice }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        host = try c.decodeIfPresent(String.self, forKey: .host) ?? "127.0.0.1"
        guard !host.isEmpty, host.utf8.count <= 253, !host.contains("\0") else {
            throw DecodingError.dataCorruptedError(forKey: .host, in: c, debugDescription: "expected a host name or address")
        }
        port = try c.decodeIfPresent(Int.self, forKey: .port, in: 1...65535, "a port") ?? 2947
        gpsDevice = try c.decodeIfPresent(String.self, forKey: .gpsDevice)
        if let gpsDevice, gpsDevice.isEmpty || gpsDevice.utf8.count > 256 || gpsDevice.contains("\0") {
            throw DecodingError.dataCorruptedError(forKey: .gpsDevice, in: c, debugDescription: "expected a receiver path")
        }
    }
}
