import Logging
import RecorderConfiguration
import RecorderEngine
import RecorderJSON
import RecorderModel

/// The `iio` backend: IMUs (accelerometer, gyroscope, magnetometer) through libiio.
public struct IIOBackend: SensorBackend {
    let retryInterval: Double
    let logger: Logger

    public init(retryInterval: Double = 1, logger: Logger = Logger(label: "recorderd.iio")) {
        self.retryInterval = retryInterval
        self.logger = logger
    }

    public var kind: String { "iio" }
    public var configurationKeys: [String] { IIOConfiguration.CodingKeys.allCases.map(\.stringValue) }

    public var servedActionTypes: Set<AsyncActionType> { [.motion] }

    public func makeSource(configuration: DeviceConfiguration, baseDirectory: String) throws(ConfigurationError) -> any SensorSource {
        IIOSource(configuration: try configuration.decode(IIOConfiguration.self), retryInterval: retryInterval, logger: logger)
    }
}
