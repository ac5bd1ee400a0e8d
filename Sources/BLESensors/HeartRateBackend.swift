import Logging
import RecorderConfiguration
import RecorderEngine
import RecorderModel

/// The `heartRate` backend: Bluetooth LE heart-rate sensors through BlueZ.
public struct HeartRateBackend: TypedSensorBackend {
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public var kind: String { "heartRate" }
    public var servedActionTypes: Set<AsyncActionType> { [.heartRate] }

    public func makeSource(_ configuration: HeartRateConfiguration, baseDirectory: String) -> any SensorSource {
        HeartRateSource(configuration: configuration, logger: logger)
    }
}
