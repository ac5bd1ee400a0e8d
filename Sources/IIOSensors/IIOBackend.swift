import Logging
import RecorderConfiguration
import RecorderEngine
import RecorderJSON
import RecorderModel

/// The `iio` backend: IMUs (accelerometer, gyroscope, magnetometer) through libiio.
public struct IIOBackend: TypedSensorBackend {
    let retryInterval: Double
    let logger: Logger

    public init(retryInterval: Double = 1, logger: Logger = Logger(label: "recorderd.iio")) {
        self.retryInterval = retryInterval
        self.logger = logger
    }

    public var kind: String { "iio" }
    public var servedActionTypes: Set<AsyncActionType> { [.motion] }

    public func makeSource(_ configuration: IIOConfiguration, baseDirectory: String) -> any SensorSource {
        IIOSource(configuration: configuration, retryInterval: retryInterval, logger: logger)
    }
}
