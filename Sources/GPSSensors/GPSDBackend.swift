import RecorderConfiguration
import RecorderEngine
import RecorderJSON
import RecorderModel

/// The `gpsd` backend: location fixes from a gpsd through libgps.
public struct GPSDBackend: SensorBackend {
    public init() {}

    public var kind: String { "gpsd" }
    public var configurationKeys: [String] { GPSDConfiguration.CodingKeys.allCases.map(\.stringValue) }

    public var servedActionTypes: Set<AsyncActionType> { [.distance] }

    public func makeSource(configuration: DeviceConfiguration, baseDirectory: String) throws(ConfigurationError) -> any SensorSource {
        GPSDSource(configuration: try configuration.decode(GPSDConfiguration.self))
    }
}
