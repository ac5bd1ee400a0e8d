import Foundation
import Logging
import RecorderModel

/// Reads `recorderd.json` and applies command-line overrides.
public enum DaemonConfigurationLoader {
    public static let defaultPath = "/etc/recorderd/recorderd.json"

    /// Loads the configuration at `path`. A missing file is an error only when `required`
    /// (the user named it); the default path may be absent (defaults are used).
    public static func load(path: String, required: Bool, socket: String?, dataDirectory: String?) throws(ConfigurationError) -> (DaemonConfiguration, baseDirectory: String) {
        var configuration = DaemonConfiguration()
        let baseDirectory = ((path as NSString).standardizingPath as NSString).deletingLastPathComponent
        if FileManager.default.fileExists(atPath: path) {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw ConfigurationError("\(path): \((error as NSError).localizedDescription)")
            }
            do {
                configuration = try DaemonConfiguration.decode(data)
            } catch {
                throw ConfigurationError("\(path): \(error.message)")
            }
        } else if required {
            throw ConfigurationError("\(path): no such file")
        }
        if let socket { configuration.socket = socket }
        if let dataDirectory { configuration.dataDirectory = dataDirectory }
        let problems = deviceProblems(configuration, baseDirectory: baseDirectory)
        if !problems.isEmpty { throw ConfigurationError("\(path): " + problems.joined(separator: "; ")) }
        return (configuration, baseDirectory)
    }

    /// Every device entry its backend cannot use (unknown kind, a key out of range), each with its
    /// JSON path: a file with any of them is refused as a whole. Probes nothing.
    public static func deviceProblems(_ configuration: DaemonConfiguration, baseDirectory: String) -> [String] {
        let backends = RecorderDaemon.backends(retryInterval: configuration.retryInterval, logger: Logger(label: "recorderd.check"))
        var problems: [String] = []
        for (index, device) in configuration.devices.enumerated() {
            guard let backend = backends.first(where: { $0.kind == device.kind }) else {
                problems.append("devices[\(index)].kind: unknown kind \(device.kind.debugDescription): expected one of \(backends.map(\.kind).joined(separator: ", "))")
                continue
            }
            var sensorTypes: [SensorType]?
            do {
                sensorTypes = try backend.makeSource(configuration: device, baseDirectory: baseDirectory).configuredSensorTypes
            } catch {
                problems.append("devices[\(index)].\(error.message)")
            }
            for provider in RecorderDaemon.stageProviders {
                do {
                    try provider.validate(device, sensorTypes: sensorTypes)
                } catch {
                    problems.append("devices[\(index)].\(error.message)")
                }
            }
        }
        return problems
    }
}
