import RecorderConfiguration
import RecorderEngine
import RecorderJSON
import RecorderModel

/// Fused device motion for every motion device with an accelerometer and a gyroscope: the
/// `FrameStageProvider` the daemon gives its `DeviceRegistry`.
public struct DeviceMotionFusion: FrameStageProvider {
    public init() {}

    /// `fusion`: `true`/`false`, or an object of `FusionConfiguration`'s keys.
    public var configurationKeys: [String: ConfigurationKeys] {
        ["fusion": .keys(FusionConfiguration.CodingKeys.allCases.map(\.stringValue))]
    }

    /// Checks the settings, and that a device whose configuration asks for fusion (a `fusion`
    /// member other than `false`) has an accelerometer and a gyroscope where its configuration
    /// says which sensors it has.
    public func validate(_ configuration: DeviceConfiguration, sensorTypes: [SensorType]?) throws(ConfigurationError) {
        _ = try Self.settings(configuration)
        guard let member = configuration.json["fusion"], member != .bool(false), let sensorTypes,
              !(sensorTypes.contains(.accelerometer) && sensorTypes.contains(.gyro)) else { return }
        let has = sensorTypes.isEmpty ? "none" : sensorTypes.map(\.rawValue).joined(separator: ", ")
        throw ConfigurationError("fusion: needs an accelerometer and a gyroscope; the device's sensors are \(has)")
    }

    public func makeStage(configuration: DeviceConfiguration, capabilities: DeviceCapabilities) -> (any FrameStage)? {
        guard capabilities.sensorTypes.contains(.accelerometer), capabilities.sensorTypes.contains(.gyro),
              let settings = try? Self.settings(configuration) else { return nil }
        return DeviceMotionStage(settings: settings, hasMagnetometer: capabilities.sensorTypes.contains(.magnetometer))
    }

    static func settings(_ configuration: DeviceConfiguration) throws(ConfigurationError) -> FusionConfiguration {
        try configuration.decode(FusionConfiguration.Device.self).fusion ?? FusionConfiguration()
    }
}
