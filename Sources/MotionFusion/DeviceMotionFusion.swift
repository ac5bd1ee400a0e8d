import RecorderEngine
import RecorderModel

/// Fused device motion for every motion device with an accelerometer and a gyroscope: the
/// `FrameStageProvider` the daemon gives its `DeviceRegistry`.
public struct DeviceMotionFusion: FrameStageProvider {
    public init() {}

    public func validate(_ configuration: DeviceConfiguration) throws(ConfigurationError) {
        _ = try Self.settings(configuration)
    }

    public func makeStage(configuration: DeviceConfiguration, capabilities: DeviceCapabilities) -> (any FrameStage)? {
        guard capabilities.sensorTypes.contains(.accelerometer), capabilities.sensorTypes.contains(.gyro),
              let settings = try? Self.settings(configuration) else { return nil }
        return DeviceMotionStage(settings: settings, hasMagnetometer: capabilities.sensorTypes.contains(.magnetometer))
    }

    static func settings(_ configuration: DeviceConfiguration) throws(ConfigurationError) -> FusionConfiguration {
        do {
            return try configuration.json.decode(FusionConfiguration.Device.self).fusion ?? FusionConfiguration()
        } catch {
            throw ConfigurationError(DecodingErrorDescription.describe(error))
        }
    }
}
