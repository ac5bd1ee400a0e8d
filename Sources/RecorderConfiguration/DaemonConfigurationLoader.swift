import FoundationEssentials
import Glibc
import Logging
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// Reads `recorderd.json` and applies command-line overrides.
public enum DaemonConfigurationLoader {
    public static let defaultPath = "/etc/recorderd/recorderd.json"

    /// What reading a configuration file found.
    public struct Check: Sendable {
        public var path: String
        /// The configuration with defaults filled in and the overrides applied.
        public var configuration: DaemonConfiguration
        /// Where relative device files resolve: the file's folder.
        public var baseDirectory: String
        /// Every problem, each with its JSON path: any of them refuses the file.
        public var problems: [String]
        /// Keys the file has that recorderd does not know (a typo, most likely), with the known
        /// key meant when one is close.
        public var warnings: [String]
        /// False when the (default) file was absent and the defaults are used.
        public var fileExists: Bool
    }

    /// Reads and checks the configuration at `path` without probing anything. A missing file is
    /// a problem only when `required` (the user named it); the default path may be absent.
    /// `deviceKinds`: the device kinds the program has (none: device entries are not checked).
    public static func check(path: String, required: Bool, socket: String? = nil, dataDirectory: String? = nil,
                             deviceKinds: DeviceKinds) -> Check {
        // Absolute: a relative --config resolves against the working directory, so that the
        // files it names (a replay device's, the web page's tasks) do too.
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let baseDirectory = PathText.parent(of: PathText.standardized(absolute))
        var result = Check(path: path, configuration: DaemonConfiguration(), baseDirectory: baseDirectory, problems: [], warnings: [],
                           fileExists: FileManager.default.fileExists(atPath: path))
        if result.fileExists {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                result.problems = [ErrorText.describe(error)]
                return result
            }
            guard let value = try? JSONParser.parse(data) else {
                result.problems = DaemonConfiguration.read(data).problems
                return result
            }
            result.warnings = configurationKeys(deviceKinds).unknownKeys(in: value)
            let reading = DaemonConfiguration.read(value)
            result.configuration = reading.configuration
            result.problems = reading.problems
            if let socket { result.configuration.socket = socket }
            if let dataDirectory { result.configuration.dataDirectory = dataDirectory }
            result.problems += deviceKinds.problems(result.configuration, baseDirectory: baseDirectory, skipping: reading.setAsideDevices)
            result.problems += mqttProblems(result.configuration, baseDirectory: baseDirectory)
        } else if required {
            result.problems = ["no such file"]
        } else {
            if let socket { result.configuration.socket = socket }
            if let dataDirectory { result.configuration.dataDirectory = dataDirectory }
        }
        return result
    }

    /// Loads the configuration at `path` (see `check`): each warning goes to `warn`; any problem
    /// throws, naming the file and every problem.
    public static func load(path: String, required: Bool, socket: String?, dataDirectory: String?, deviceKinds: DeviceKinds,
                            warn: (String) -> Void = { _ in }) throws(ConfigurationError) -> (DaemonConfiguration, baseDirectory: String) {
        let check = check(path: path, required: required, socket: socket, dataDirectory: dataDirectory, deviceKinds: deviceKinds)
        for warning in check.warnings { warn("\(path): \(warning)") }
        if !check.problems.isEmpty { throw ConfigurationError("\(path): " + check.problems.joined(separator: "; ")) }
        return (check.configuration, check.baseDirectory)
    }

    /// Every key a configuration file may have: the daemon's, and each device kind's.
    public static func configurationKeys(_ deviceKinds: DeviceKinds) -> ConfigurationKeys {
        DaemonConfiguration.keys(devices: deviceKinds.keys)
    }

    /// The `mqtt` files (TLS, password) that cannot be read, and live streams of devices the file
    /// does not have, each naming its key.
    public static func mqttProblems(_ configuration: DaemonConfiguration, baseDirectory: String) -> [String] {
        guard let mqtt = configuration.mqtt else { return [] }
        let files: [(String, String?)] = [("mqtt.tls.ca", mqtt.tls?.ca), ("mqtt.tls.certificate", mqtt.tls?.certificate),
                                          ("mqtt.tls.key", mqtt.tls?.key), ("mqtt.passwordFile", mqtt.passwordFile)]
        let unreadable = files.compactMap { key, path -> String? in
            guard let path else { return nil }
            let resolved = path.hasPrefix("/") ? path : baseDirectory + "/" + path
            return FileManager.default.isReadableFile(atPath: resolved) ? nil : "\(key): cannot read \(resolved)"
        }
        let names = configuration.devices.map(\.name)
        let unknown = mqtt.live.enumerated().compactMap { index, stream -> String? in
            names.contains(stream.device) ? nil
                : "mqtt.live[\(index)].device: no device named \(stream.device.debugDescription) (devices: \(names.joined(separator: ", ")))"
        }
        return unreadable + unknown
    }
}
