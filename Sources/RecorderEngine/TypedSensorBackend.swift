import RecorderConfiguration
import RecorderModel

/// A backend whose devices are configured by one `BackendConfiguration` type: the keys it knows
/// are that type's, and a source is made from the decoded entry (a bad value is a
/// `ConfigurationError` naming its key before the backend sees it).
public protocol TypedSensorBackend: SensorBackend {
    associatedtype Configuration: BackendConfiguration
    /// The source of one decoded entry; relative paths resolve against `baseDirectory`.
    func makeSource(_ configuration: Configuration, baseDirectory: String) -> any SensorSource
}

extension TypedSensorBackend {
    public var configurationKeys: [String] { Configuration.keys }

    public func makeSource(configuration: DeviceConfiguration, baseDirectory: String) throws(ConfigurationError) -> any SensorSource {
        makeSource(try configuration.decode(Configuration.self), baseDirectory: baseDirectory)
    }
}
