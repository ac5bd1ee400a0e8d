import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel

/// One configured device: `name`, `kind` and the backend's own keys (kept as JSON for the
/// backend to decode).
public struct DeviceConfiguration: Sendable, Equatable {
    public var name: String
    public var kind: String
    /// The whole device object, including `name` and `kind`.
    public var json: JSONValue

    public init(name: String, kind: String, json: JSONValue) {
        self.name = name
        self.kind = kind
        self.json = json
    }
}

extension DeviceConfiguration {
    /// The device object decoded as a backend's or a stage's own configuration; a bad value is a
    /// `ConfigurationError` naming its key.
    public func decode<T: Decodable>(_ type: T.Type) throws(ConfigurationError) -> T {
        do {
            return try json.decode(type)
        } catch {
            throw ConfigurationError(DecodingErrorDescription.describe(error))
        }
    }
}

extension DeviceConfiguration: Codable {
    enum CodingKeys: String, CodingKey { case name, kind }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        guard RecorderIdentifier.isValid(name) else {
            throw DecodingError.dataCorruptedError(forKey: .name, in: c, debugDescription: "invalid device name: expected \(RecorderIdentifier.expectation)")
        }
        kind = try c.decode(String.self, forKey: .kind)
        json = try JSONValue(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }
}

/// `recorderd.json`: the daemon's configuration.
public struct DaemonConfiguration: Sendable, Equatable {
    public var socket: String = "/run/recorderd/control.sock"
    /// Permission bits of the control socket (default 0660).
    public var socketMode: UInt16 = 0o660
    public var dataDirectory: String = "/var/lib/recorderd"
    /// Seconds of samples each device's ring holds.
    public var ringSeconds: Double = 30
    /// Seconds without activity after which a task run is finished as `abandoned`.
    public var orphanTimeout: Double = 600
    /// Seconds between attempts to open an unavailable device.
    public var retryInterval: Double = 1
    /// Seconds a sampling thread may go without a heartbeat (beyond twice its longest blocking
    /// call) before it counts as wedged and the systemd watchdog pings stop.
    public var stallTimeout: Double = 5
    /// What clients may use at once.
    public var limits = DaemonLimits()
    public var devices: [DeviceConfiguration] = []
    /// The web page (nil: off).
    public var http: HTTPConfiguration?
    /// The fleet link over an MQTT broker (nil: off).
    public var mqtt: MQTTConfiguration?
    /// Where the clock's synchronisation is asked.
    public var clock = ClockConfiguration()

    /// Allowed values of the numbers (checked when the file is read).
    public static let ringSecondsRange = NumberRange(greaterThan: 0, atMost: 3600, "seconds")
    public static let orphanTimeoutRange = NumberRange(greaterThan: 0, atMost: 604_800, "seconds")
    public static let retryIntervalRange = NumberRange(atLeast: 0.01, atMost: 3600, "seconds")
    public static let stallTimeoutRange = NumberRange(atLeast: 0.1, atMost: 3600, "seconds")
    /// The longest control socket path (`sun_path` holds 108 bytes with the terminating NUL).
    public static let maximumSocketPathLength = 107

    public init() {}

    /// Decodes a configuration file; errors name the JSON path.
    public static func decode(_ data: Data) throws(ConfigurationError) -> DaemonConfiguration {
        do {
            return try JSONValueDecoder().decode(DaemonConfiguration.self, from: data)
        } catch {
            throw ConfigurationError(DecodingErrorDescription.describe(error))
        }
    }
}

extension DaemonConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case socket, socketMode, dataDirectory, ringSeconds, orphanTimeout, retryInterval, stallTimeout, limits, devices, http, mqtt, clock }

    /// The keys of a configuration file, with each device kind's keys (`devices`).
    public static func keys(devices: [String: ConfigurationKeys]) -> ConfigurationKeys {
        var known = Dictionary(uniqueKeysWithValues: CodingKeys.allCases.map { ($0.stringValue, ConfigurationKeys.any) })
        known[CodingKeys.limits.stringValue] = .keys(DaemonLimits.CodingKeys.allCases.map(\.stringValue))
        known[CodingKeys.devices.stringValue] = .tagged(by: "kind", devices)
        known[CodingKeys.http.stringValue] = .keys(HTTPConfiguration.CodingKeys.allCases.map(\.stringValue))
        known[CodingKeys.mqtt.stringValue] = MQTTConfiguration.configurationKeys
        known[CodingKeys.clock.stringValue] = .keys(ClockConfiguration.CodingKeys.allCases.map(\.stringValue))
        return .object(known)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        socket = try c.decodeIfPresent(String.self, forKey: .socket, bytes: 1...Self.maximumSocketPathLength,
                                       expected: "expected a socket path of 1 to \(Self.maximumSocketPathLength) bytes") ?? socket
        if let modeText = try? c.decodeIfPresent(String.self, forKey: .socketMode) {
            guard let m = UInt16(modeText, radix: 8), m <= 0o777 else {
                throw DecodingError.dataCorruptedError(forKey: .socketMode, in: c, debugDescription: "expected an octal mode such as \"0660\"")
            }
            socketMode = m
        } else if let m = try c.decodeIfPresent(Int.self, forKey: .socketMode, in: 0...0o777, "a mode (0 to 0777, i.e. 511)") {
            socketMode = UInt16(m)
        }
        dataDirectory = try c.decodeIfPresent(String.self, forKey: .dataDirectory, bytes: 1...1024,
                                              expected: "expected a directory path of 1 to 1024 bytes") ?? dataDirectory
        ringSeconds = try c.decodeIfPresent(Double.self, forKey: .ringSeconds, in: Self.ringSecondsRange) ?? ringSeconds
        orphanTimeout = try c.decodeIfPresent(Double.self, forKey: .orphanTimeout, in: Self.orphanTimeoutRange) ?? orphanTimeout
        retryInterval = try c.decodeIfPresent(Double.self, forKey: .retryInterval, in: Self.retryIntervalRange) ?? retryInterval
        stallTimeout = try c.decodeIfPresent(Double.self, forKey: .stallTimeout, in: Self.stallTimeoutRange) ?? stallTimeout
        limits = try c.decodeIfPresent(DaemonLimits.self, forKey: .limits) ?? limits
        devices = try c.decodeIfPresent([DeviceConfiguration].self, forKey: .devices) ?? []
        http = try c.decodeIfPresent(HTTPConfiguration.self, forKey: .http)
        mqtt = try c.decodeIfPresent(MQTTConfiguration.self, forKey: .mqtt)
        clock = try c.decodeIfPresent(ClockConfiguration.self, forKey: .clock) ?? clock
        var seen = Set<String>()
        for (i, d) in devices.enumerated() where !seen.insert(d.name).inserted {
            throw DecodingError.dataCorrupted(.init(codingPath: [CodingKeys.devices, ArrayIndexKey(i)], debugDescription: "duplicate device name \(d.name.debugDescription)"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(socket, forKey: .socket)
        try c.encode("0" + String(socketMode, radix: 8), forKey: .socketMode)
        try c.encode(dataDirectory, forKey: .dataDirectory)
        try c.encode(ringSeconds, forKey: .ringSeconds)
        try c.encode(orphanTimeout, forKey: .orphanTimeout)
        try c.encode(retryInterval, forKey: .retryInterval)
        try c.encode(stallTimeout, forKey: .stallTimeout)
        try c.encode(limits, forKey: .limits)
        try c.encode(devices, forKey: .devices)
        try c.encodeIfPresent(http, forKey: .http)
        try c.encodeIfPresent(mqtt, forKey: .mqtt)
        try c.encode(clock, forKey: .clock)
    }
}
