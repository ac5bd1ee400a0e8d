import RecorderConfiguration
import RecorderEngine
import RecorderJSON
import RecorderModel

/// The `gpsd` backend: location fixes from a gpsd through libgps.
public struct GPSDBackend: TypedSensorBackend {
    public init() {}

    public var kind: String { "gpsd" }
    public var servedActionTypes: Set<AsyncActionType> { [.distance] }

    public func makeSource(_ configuration: GPSDConfiguration, baseDirectory: String) -> any SensorSource {
        GPSDSource(configuration: configuration)
    }
}
