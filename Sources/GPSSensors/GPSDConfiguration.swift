import RecorderModel

/// A `gpsd` device: `{"name":"gps0","kind":"gpsd","host":"127.0.0.1","port":2947,"gpsDevice":null}`.
public struct GPSDConfiguration: Sendable, Equatable, Decodable {
    public var name: String
    public var host: String
    public var port: Int
    /// Watch only this receiver (its path, e.g. `/dev/ttyACM0`); nil: every receiver.
    public var gpsDevice: String?

    enum CodingKeys: String, CodingKey { case name, host, port, gpsDevice }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        host = try c.decodeIfPresent(String.self, forKey: .host) ?? "127.0.0.1"
        port = try c.decodeIfPresent(Int.self, forKey: .port) ?? 2947
        guard (1...65535).contains(port) else {
            throw DecodingError.dataCorruptedError(forKey: .port, in: c, debugDescription: "expected a port from 1 to 65535")
        }
        gpsDevice = try c.decodeIfPresent(String.self, forKey: .gpsDevice)
    }
}
