import ArgumentParser
import Logging
import RecorderModel
import RecorderRuntime

extension DaemonOptions {
    /// `load()`'s configuration, for an executable starting up: a configuration error is one
    /// critical log line and exit status 78 (sysexits' EX_CONFIG).
    public static func configurationOrExit(logger: Logger, _ load: () throws(ConfigurationError) -> (DaemonConfiguration, baseDirectory: String))
        throws(ExitCode) -> (DaemonConfiguration, baseDirectory: String) {
        do {
            return try load()
        } catch {
            logger.critical("configuration error", metadata: ["error": "\(error.message)"])
            throw ExitCode(SysexitStatus.configuration.rawValue)
        }
    }
}
