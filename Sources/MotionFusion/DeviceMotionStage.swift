import Foundation
import RecorderEngine
import RecorderModel

/// One device's fusion: Mahony's filter fed by every motion frame the device delivers, adding
/// `DeviceMotion` to each frame with a gyroscope reading. Devices that deliver the accelerometer
/// and the gyroscope in separate frames (two IIO devices) fuse each gyroscope frame with the
/// latest accelerometer (and magnetometer) reading.
///
/// The filter is aligned from the first accelerometer (and magnetometer) reading after a
/// (re)start, so there is no start-up swing. A pause of more than `maximumStep` between gyroscope
/// readings (a device that failed and resumed) is not integrated.
final class DeviceMotionStage: FrameStage {
    let addedTypes: [SensorType]
    let alwaysOn: Bool
    /// Longest interval integrated, seconds.
    static let maximumStep = 1.0

    struct State {
        var filter: MahonyFilter
        var aligned = false
        var lastGyroUptime: Double?
        var accelerometer: Vector3?
        var magnetometer: Vector3?
    }

    /// Used on the sampling thread only; the lock (uncontended, once per delivery) makes that
    /// checkable by ThreadSanitizer rather than assumed.
    private let state: LockedValue<State>
    private let gains: MahonyFilter.Gains
    private let hasMagnetometer: Bool

    init(settings: FusionConfiguration, hasMagnetometer: Bool) {
        alwaysOn = settings.alwaysOn
        gains = settings.gains
        self.hasMagnetometer = hasMagnetometer
        addedTypes = hasMagnetometer ? SensorType.deviceMotionTypes : SensorType.deviceMotionTypes.filter { $0 != .magneticField }
        state = LockedValue(State(filter: MahonyFilter(gains: settings.gains)))
    }

    func restart() {
        let gains = self.gains
        state.withLock { $0 = State(filter: MahonyFilter(gains: gains)) }
    }

    func process(_ frames: inout [SensorFrame]) {
        state.withLock { s in
            for i in frames.indices {
                guard case .motion(var m) = frames[i] else { continue }
                if let a = m.accelerometer { s.accelerometer = a }
                if let f = m.magnetometer { s.magnetometer = f }
                guard let gyro = m.gyro, let acc = s.accelerometer else { continue }
                let field = hasMagnetometer ? s.magnetometer : nil
                if !s.aligned {
                    guard let attitude = MahonyFilter.alignment(accelerometer: acc, magnetometer: field) else { continue }
                    s.filter = MahonyFilter(gains: gains, attitude: attitude)
                    s.aligned = true
                } else if let last = s.lastGyroUptime, case let dt = m.uptime - last, dt > 0, dt <= Self.maximumStep {
                    s.filter.update(gyro: gyro, accelerometer: acc, magnetometer: field, dt: dt)
                }
                s.lastGyroUptime = m.uptime
                m.fused = Self.motion(s.filter, gyro: gyro, accelerometer: acc, magnetometer: field)
                frames[i] = .motion(m)
            }
        }
    }

    /// The device motion the filter's state gives for one sampling instant.
    static func motion(_ filter: MahonyFilter, gyro: Vector3, accelerometer: Vector3, magnetometer: Vector3?) -> DeviceMotion {
        let gravity = filter.up
        var motion = DeviceMotion(attitude: filter.attitude, referenceCoordinate: magnetometer == nil ? .zUp : .northWestUp,
                                  gravity: gravity, userAcceleration: accelerometer - gravity, rotationRate: gyro - filter.gyroBias)
        if let magnetometer {
            // The device's +Y axis in the reference frame, clockwise from north (+X) through east (−Y).
            let y = filter.attitude.rotate(Vector3(x: 0, y: 1, z: 0))
            if y.x * y.x + y.y * y.y > 1e-12 {
                let degrees = atan2(-y.y, y.x) * 180 / .pi
                motion.heading = degrees < 0 ? degrees + 360 : degrees
            }
            motion.magneticField = magnetometer
            motion.magneticAccuracy = -1
        }
        return motion
    }
}
