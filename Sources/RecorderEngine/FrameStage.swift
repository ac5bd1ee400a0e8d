import RecorderConfiguration
import RecorderJSON
import RecorderModel

/// A device-level step between a sensor source and its ring, run on the sampling thread: every
/// reader of the device (recordings, pre-roll, live subscribers) sees what it adds, and its state
/// is continuous across recordings. Fused device motion (`MotionFusion`) is one. A stage runs
/// while a lease asks for one of its `addedTypes`, or always when `alwaysOn`.
public protocol FrameStage: AnyObject, Sendable {
    /// The sensor types it adds to the device's frames (advertised in the device's capabilities).
    var addedTypes: [SensorType] { get }
    /// Runs even when nothing asks for its types (so that a pre-roll holds them).
    var alwaysOn: Bool { get }
    /// Adds its output to `frames` (in time order) in place. Called on the sampling thread only.
    func process(_ frames: inout [SensorFrame])
    /// Starts afresh with the next frames (the stage was off, and its state is stale).
    func restart()
}

/// Makes a device's stages: one provider per kind of stage, given to the `DeviceRegistry`.
public protocol FrameStageProvider: Sendable {
    /// Checks the device's configuration of this stage, with the sensor types the configuration
    /// fixes (nil: known only once opened); the error's message is a path within the device
    /// object and the problem (`fusion.proportionalGain: expected …`).
    func validate(_ configuration: DeviceConfiguration, sensorTypes: [SensorType]?) throws(ConfigurationError)
    /// The device-entry keys it reads (`fusion` and the keys within), to warn about unknown ones.
    var configurationKeys: [String: ConfigurationKeys] { get }
    /// The stage for an opened device, or nil when its configuration or its sensors do not call
    /// for one (fused motion needs an accelerometer and a gyroscope).
    func makeStage(configuration: DeviceConfiguration, capabilities: DeviceCapabilities) -> (any FrameStage)?
}
