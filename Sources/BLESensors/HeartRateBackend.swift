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

    /// An LE scan for sensors advertising the Heart Rate Service (`recorderctl ble scan`).
    public func scan(seconds: Double, adapter: String?) -> Result<[HardwareDevice], DeviceScanFailure> {
        let adapter = adapter ?? "hci0"
        guard HeartRateConfiguration.isAdapterName(adapter) else {
            return .failure(DeviceScanFailure("expected an adapter name such as hci0, got \(adapter.debugDescription)", unsupported: true))
        }
        return HeartRateScanner.scan(seconds: seconds, adapter: adapter)
    }
}
