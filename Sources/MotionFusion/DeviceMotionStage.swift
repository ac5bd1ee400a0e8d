import RecorderEngine
import RecorderModel
import RecorderRuntime

/// One device's fusion as the engine runs it between the device's source and its ring: a
/// `DeviceMotionFuser` behind a lock.
final class DeviceMotionStage: FrameStage {
    let addedTypes: [SensorType]
    let alwaysOn: Bool
    private let settings: FusionConfiguration
    private let usesMagnetometer: Bool
    /// Used on the sampling thread only; the lock (uncontended, taken once per delivery) makes
    /// that checkable by ThreadSanitizer rather than assumed.
    private let fuser: LockedValue<DeviceMotionFuser>

    init(settings: FusionConfiguration, hasMagnetometer: Bool) {
        alwaysOn = settings.alwaysOn
        self.settings = settings
        usesMagnetometer = hasMagnetometer
        addedTypes = hasMagnetometer ? SensorType.deviceMotionTypes : SensorType.deviceMotionTypes.filter { $0 != .magneticField }
        fuser = LockedValue(DeviceMotionFuser(configuration: settings, usesMagnetometer: hasMagnetometer))
    }

    func restart() {
        let fresh = DeviceMotionFuser(configuration: settings, usesMagnetometer: usesMagnetometer)
        fuser.withLock { $0 = fresh }
    }

    func process(_ frames: inout [SensorFrame]) {
        fuser.withLock { $0.process(&frames) }
    }
}
