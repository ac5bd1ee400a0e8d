import FoundationEssentials
import Glibc
import RecorderModel

/// The per-frame work of one device's fusion, without threads or I/O: Mahony's filter fed by
/// every motion frame, adding `DeviceMotion` to each frame with a gyroscope reading. Frames that
/// carry only the accelerometer or only the gyroscope (two IIO devices) are fused with the latest
/// reading of the other.
///
/// Start: the filter is aligned from the first accelerometer (and magnetometer) reading, so there
/// is no start-up swing; for the first second (`StillStart.window`) it follows the accelerometer
/// closely (k_P ≥ `initialProportionalGain`) and, if the device held still, takes the mean
/// gyroscope reading as the bias. After that the configured gains hold and readings that are
/// mostly linear acceleration are rejected (`AccelerationRejection`). A pause of more than
/// `maximumStep` between gyroscope readings (a device that failed and resumed) is not integrated.
public struct DeviceMotionFuser: Sendable {
    /// Longest interval integrated, seconds.
    public static let maximumStep = 1.0
    /// k_P during the first second.
    public static let initialProportionalGain = 10.0

    public let configuration: FusionConfiguration
    /// Whether the device's magnetometer takes part (North-West-Up attitudes, heading, field).
    public let usesMagnetometer: Bool
    public private(set) var filter: MahonyFilter
    /// The magnetometer's hard-iron offset, learnt as the device turns.
    public private(set) var hardIron = HardIronEstimator()
    public private(set) var rejection: AccelerationRejection
    public private(set) var isAligned = false
    /// Still in the first second after alignment.
    public private(set) var isStarting = false
    private var start = StillStart()
    private var alignedUptime = 0.0
    private var lastGyroUptime: Double?
    private var accelerometer: Vector3?
    private var magnetometer: Vector3?
    /// The accelerometer and field the last estimate was made for.
    private var previousReadings: (accelerometer: Vector3, field: Vector3?)?

    public init(configuration: FusionConfiguration = FusionConfiguration(), usesMagnetometer: Bool) {
        self.configuration = configuration
        self.usesMagnetometer = usesMagnetometer
        filter = MahonyFilter(gains: configuration.gains)
        rejection = configuration.rejection
    }

    /// Adds device motion to the motion frames of `frames` (in time order).
    public mutating func process(_ frames: inout [SensorFrame]) {
        for i in frames.indices {
            guard case .motion(var m) = frames[i], let fused = fuse(m) else { continue }
            m.fused = fused
            frames[i] = .motion(m)
        }
    }

    /// One sampling instant: its device motion, or nil before the filter can say (no gyroscope
    /// reading in the frame, or no accelerometer reading yet).
    public mutating func fuse(_ m: MotionFrame) -> DeviceMotion? {
        if let a = m.accelerometer { accelerometer = a }
        if let f = m.magnetometer {
            if usesMagnetometer { hardIron.add(f, uptime: m.uptime) }
            magnetometer = f
        }
        guard let gyro = m.gyro, let acc = accelerometer else { return nil }
        // The field less the hard-iron offset once it is estimated (the raw field before).
        let field = usesMagnetometer ? magnetometer.map(hardIron.calibrated) : nil
        if !isAligned {
            guard let attitude = MahonyFilter.alignment(accelerometer: acc, magnetometer: field) else { return nil }
            filter = MahonyFilter(gains: configuration.gains, attitude: attitude)
            isAligned = true
            isStarting = true
            alignedUptime = m.uptime
            start = StillStart()
            start.add(gyro: gyro, accelerometer: acc)
        } else if let last = lastGyroUptime, case let dt = m.uptime - last, dt > 0, dt <= Self.maximumStep,
                  let previous = previousReadings {
            step(gyro: gyro, readings: previous, uptime: m.uptime, dt: dt)
        }
        lastGyroUptime = m.uptime
        previousReadings = (acc, field)
        var motion = Self.motion(filter, gyro: gyro, accelerometer: acc, magnetometer: field)
        if field != nil { motion.magneticAccuracy = hardIron.accuracy }
        return motion
    }

    /// One filter update from the last estimate to `uptime`: starting (high gain, watching for
    /// stillness) or running (with rejection). The correction compares the last estimate with the
    /// readings taken at its instant, not with the new ones: those have turned with the device
    /// since, and the difference (one interval's rotation, 0.4° at 0.8 rad/s and 104 Hz) would
    /// drag the estimate behind every turn and pull the bias estimate off.
    private mutating func step(gyro: Vector3, readings: (accelerometer: Vector3, field: Vector3?), uptime: Double, dt: Double) {
        let (acc, field) = readings
        if isStarting {
            var gains = configuration.gains
            gains.proportional = max(gains.proportional, Self.initialProportionalGain)
            filter.update(gyro: gyro, accelerometer: acc, magnetometer: field, dt: dt, gains: gains)
            start.add(gyro: gyro, accelerometer: acc)
            if uptime - alignedUptime >= StillStart.window {
                isStarting = false
                if let bias = start.bias { filter.gyroBias = bias }
            }
            return
        }
        let action = rejection.next(accelerometer: acc, up: filter.up, dt: dt)
        filter.update(gyro: gyro, accelerometer: action == .reject ? nil : acc, magnetometer: field, dt: dt)
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
