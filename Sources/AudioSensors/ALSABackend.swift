import Logging
import RecorderConfiguration
import RecorderEngine
import RecorderJSON
import RecorderModel

/// The `alsa` backend: microphones through ALSA.
public struct ALSABackend: SensorBackend {
    let retryInterval: Double
    let logger: Logger

    public init(retryInterval: Double = 1, logger: Logger = Logger(label: "recorderd.alsa")) {
        self.retryInterval = retryInterval
        self.logger = logger
    }

    public var kind: String { "alsa" }
    public var configurationKeys: [String] { ALSAConfiguration.CodingKeys.allCases.map(\.stringValue) }

    public var servedActionTypes: Set<AsyncActionType> { [.microphone] }

    public func makeSource(configuration: DeviceConfiguration, baseDirectory: String) throws(ConfigurationError) -> any SensorSource {
        ALSASource(configuration: try configuration.decode(ALSAConfiguration.self), retryInterval: retryInterval, logger: logger)
    }
}
