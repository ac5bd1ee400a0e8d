import Foundation
import RecorderConfiguration
import RecorderJSON

/// A test's daemon configuration, typed: a `DaemonConfiguration` whose socket and data directory
/// are in a directory of the test's own, with a replayed walk as `imu0` (`Fixtures.replayDevice`)
/// unless told otherwise. An in-process daemon takes `daemon` as it is; the executables read the
/// file `write()` makes with the daemon's own encoder (`JSONTextEncoder`), so a field the test
/// sets reaches both alike.
public struct TestConfiguration: Sendable {
    /// The test's directory: the socket, the data directory and `recorderd.json` are in it.
    public let directory: String
    public var daemon: DaemonConfiguration
    /// The page's token: the configuration's encoder writes `(set)` for it (what `--check-config`
    /// shows), so `write()` puts the test's own back.
    private var pageToken: String?

    /// `devices`: nil for one replayed walk (`imu0`, the short walk at `speed`, looping if `loop`).
    public init(directory: String? = nil, speed: Double = 1, loop: Bool = true, devices: [DeviceConfiguration]? = nil) throws {
        let directory = try directory ?? Fixtures.temporaryDirectory()
        self.directory = directory
        daemon = DaemonConfiguration()
        daemon.socket = directory + "/control.sock"
        daemon.dataDirectory = directory + "/data"
        daemon.devices = devices ?? [Fixtures.replayDevice(speed: speed, loop: loop)]
    }

    public var socket: String { daemon.socket }
    public var dataDirectory: String { daemon.dataDirectory }
    /// Where `write()` puts the configuration file.
    public var file: String { directory + "/recorderd.json" }

    /// Turns the web page on, checked as the file's `http` is.
    public mutating func page(listen: String, token: String? = nil, taskDirectory: String = "tasks") throws {
        var members: [String: JSONValue] = ["listen": .string(listen), "taskDirectory": .string(taskDirectory)]
        if let token { members["token"] = .string(token) }
        daemon.http = try JSONValueDecoder().decode(HTTPConfiguration.self, from: .object(members))
        pageToken = token
    }

    /// Turns the fleet link on (to `broker`, as `site`/`device`), checked as the file's `mqtt` is;
    /// `configure` sets the rest.
    public mutating func fleet(broker: String, site: String, device: String, keepalive: Int = 5,
                               _ configure: (inout MQTTConfiguration) -> Void = { _ in }) throws {
        let members: [String: JSONValue] = ["broker": .string(broker), "site": .string(site), "device": .string(device),
                                            "keepalive": .number(Double(keepalive))]
        var mqtt = try JSONValueDecoder().decode(MQTTConfiguration.self, from: .object(members))
        configure(&mqtt)
        daemon.mqtt = mqtt
    }

    /// Writes the configuration to `file` and returns its path.
    @discardableResult
    public func write() throws -> String {
        var bytes = try JSONTextEncoder().encode(daemon)
        if let pageToken, case .object(var members) = try JSONParser.parse(bytes), case .object(var http)? = members["http"] {
            http["token"] = .string(pageToken)
            members["http"] = .object(http)
            bytes = try JSONTextEncoder().encode(JSONValue.object(members))
        }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }
}
