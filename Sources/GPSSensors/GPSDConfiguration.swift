import RecorderConfiguration
import RecorderModel

/// A `gpsd` device: `{"name":"gps0","kind":"gpsd","host":"127.0.0.1","port":2947,"gpsDevice":null}`.
public struct GPSDConfiguration: Sendable, Equatable, BackendConfiguration {
    public var name: String
    public var host: String
    public var port: Int
    /// Watch only this receiver (its path, e.g. `/dev/ttyACM0`); nil: every receiver.
    public var gpsDevice: String?

    public enum CodingKeys: String, CodingKey, CaseIterable { case name, host, port, gpsDevice }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        host = try c.decodeIfPresent(String.self, forKey: .host, bytes: 1...253, expected: "expected a host name or address") ?? "127.0.0.1"
        port = try c.decodeIfPresent(Int.self, forKey: .port, in: 1...65535, "a port") ?? 2947
        gpsDevice = try c.decodeIfPresent(String.self, forKey: .gpsDevice, bytes: 1...256, expected: "expected a receiver path")
    }
}
