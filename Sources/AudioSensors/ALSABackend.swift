import Logging
import RecorderConfiguration
import RecorderEngine
import RecorderJSON
import RecorderModel

/// The `alsa` backend: microphones through ALSA.
public struct ALSABackend: TypedSensorBackend {
    let retryInterval: Double
    let logger: Logger

    public init(retryInterval: Double = 1, logger: Logger = Logger(label: "recorderd.alsa")) {
        self.retryInterval = retryInterval
        self.logger = logger
    }

    public var kind: String { "alsa" }
    public var servedActionTypes: Set<AsyncActionType> { [.microphone] }

    public func makeSource(_ configuration: ALSAConfiguration, baseDirectory: String) -> any SensorSource {
        ALSASource(configuration: configuration, retryInterval: retryInterval, logger: logger)
    }
}
