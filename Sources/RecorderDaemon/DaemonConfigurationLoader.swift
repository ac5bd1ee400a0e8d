import Foundation
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
        return (configuration, baseDirectory)
    }
}
