/// Three axes of one motion measurement.
public struct Vector3: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// One sampling instant of a motion device: every motion sensor it measured at `uptime`.
/// Units are the file units: accelerometer in g, gyro in rad/s, magnetometer in µT.
///
/// 96 bytes, copied several times per sample on its way through the ring (it was 272): the raw
/// vectors are stored without `Optional`'s padding (a set of flags says which are present; an
/// absent one is zero), and the fused motion, present only while fusion runs, is boxed.
public struct MotionFrame: Sendable, Equatable {
    /// CLOCK_MONOTONIC seconds when the sample was measured.
    public var uptime: Double
    // Internal, not private, and the accessors and initialiser below inlinable: a backend builds
    // a frame per scan, and a call across the module boundary cost ~110 instructions.
    @usableFromInline var storedAccelerometer = Vector3.zero
    @usableFromInline var storedGyro = Vector3.zero
    @usableFromInline var storedMagnetometer = Vector3.zero
    @usableFromInline var fusedBox: FusedMotionBox?
    /// Which raw vectors are present: 1 accelerometer, 2 gyro, 4 magnetometer.
    @usableFromInline var present: UInt8 = 0

    @inlinable
    public var accelerometer: Vector3? {
        get { present & 1 != 0 ? storedAccelerometer : nil }
        set {
            storedAccelerometer = newValue ?? .zero
            present = newValue == nil ? present & ~1 : present | 1
        }
    }

    @inlinable
    public var gyro: Vector3? {
        get { present & 2 != 0 ? storedGyro : nil }
        set {
            storedGyro = newValue ?? .zero
            present = newValue == nil ? present & ~2 : present | 2
        }
    }

    @inlinable
    public var magnetometer: Vector3? {
        get { present & 4 != 0 ? storedMagnetometer : nil }
        set {
            storedMagnetometer = newValue ?? .zero
            present = newValue == nil ? present & ~4 : present | 4
        }
    }

    /// Device motion fused from these and the earlier samples (while fusion runs).
    @inlinable
    public var fused: DeviceMotion? {
        get { fusedBox?.motion }
        set { fusedBox = newValue.map(FusedMotionBox.init) }
    }

    @inlinable
    public init(uptime: Double, accelerometer: Vector3? = nil, gyro: Vector3? = nil, magnetometer: Vector3? = nil,
                fused: DeviceMotion? = nil) {
        self.uptime = uptime
        self.accelerometer = accelerometer
        self.gyro = gyro
        self.magnetometer = magnetometer
        self.fused = fused
    }

    /// Sets the raw vector of a device sensor (`accelerometer`, `gyro`, `magnetometer`); other
    /// types are fused, not set one by one.
    public mutating func setRaw(_ vector: Vector3, for type: SensorType) {
        switch type {
        case .accelerometer: accelerometer = vector
        case .gyro: gyro = vector
        case .magnetometer: magnetometer = vector
        default: preconditionFailure("\(type) is not a raw device sensor")
        }
    }

    /// The vector for a motion sensor type, or nil (the attitude is a quaternion: `fused`).
    public func vector(for type: SensorType) -> Vector3? {
        switch type {
        case .accelerometer: return accelerometer
        case .gyro: return gyro
        case .magnetometer: return magnetometer
        case .gravity: return fused?.gravity
        case .userAcceleration: return fused?.userAcceleration
        case .rotationRate: return fused?.rotationRate
        case .magneticField: return fused?.magneticField
        case .attitude, .location, .soundLevel, .step, .heartRate: return nil
        }
    }
}

/// A frame's fused device motion, shared by the frame's copies (immutable).
@usableFromInline
final class FusedMotionBox: Sendable, Equatable {
    @usableFromInline let motion: DeviceMotion

    @usableFromInline init(_ motion: DeviceMotion) { self.motion = motion }

    @usableFromInline static func == (a: FusedMotionBox, b: FusedMotionBox) -> Bool { a === b || a.motion == b.motion }
}

/// One position fix (SageResearch location record fields). Unset values are nil and omitted.
public struct LocationFix: Sendable, Equatable {
    public var uptime: Double
    /// The fix's own UTC time, seconds since 1970.
    public var fixTime: Double?
    public var latitude: Double?
    public var longitude: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
    public var altitude: Double?
    public var course: Double?
    public var speed: Double?
    /// 2 or 3; 0/1 when there is no fix.
    public var mode: Int
    public var satellitesUsed: Int?

    public init(
        uptime: Double, fixTime: Double? = nil, latitude: Double? = nil, longitude: Double? = nil,
        horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil, altitude: Double? = nil,
        course: Double? = nil, speed: Double? = nil, mode: Int, satellitesUsed: Int? = nil
    ) {
        self.uptime = uptime
        self.fixTime = fixTime
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.altitude = altitude
        self.course = course
        self.speed = speed
        self.mode = mode
        self.satellitesUsed = satellitesUsed
    }
}

/// A sound level over `timeInterval` seconds ending at `uptime`, in dBFS.
public struct SoundLevel: Sendable, Equatable {
    public var uptime: Double
    public var timeInterval: Double
    public var average: Double
    public var peak: Double

    public init(uptime: Double, timeInterval: Double, average: Double, peak: Double) {
        self.uptime = uptime
        self.timeInterval = timeInterval
        self.average = average
        self.peak = peak
    }
}

/// A block of captured audio: interleaved signed 16-bit PCM frames, the first measured at `uptime`.
public struct AudioChunk: Sendable, Equatable {
    /// CLOCK_MONOTONIC seconds of the first frame.
    public var uptime: Double
    public var sampleRate: Int
    public var channels: Int
    /// Interleaved samples (`frames × channels`), S16 full scale = 32768.
    public var samples: [Int16]

    public init(uptime: Double, sampleRate: Int, channels: Int, samples: [Int16]) {
        self.uptime = uptime
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// Frames in the chunk.
    public var frames: Int { channels > 0 ? samples.count / channels : 0 }

    /// Seconds the chunk covers.
    public var duration: Double { Double(frames) / Double(sampleRate) }
}

/// What a sensor source hands to its ring: measurements, and the events that explain
/// missing measurements (never silent).
public enum SensorFrame: Sendable, Equatable {
    case motion(MotionFrame)
    /// A Bluetooth LE heart-rate sensor's notification (boxed: it holds an array).
    indirect case heartRate(HeartRateMeasurement)
    /// Boxed: a fix is larger than a motion frame and ~1,000 times rarer (a frame's size is paid on
    /// every motion sample's copies).
    indirect case location(LocationFix)
    case soundLevel(SoundLevel)
    /// Captured audio (microphone recordings compute levels and write the WAV from it).
    case audio(AudioChunk)
    /// Samples lost before they reached recorderd (kernel FIFO overrun, receiver gap, xrun),
    /// noticed at `uptime` (the first measurement after them); `duration`: the seconds they span
    /// when the source measured it (a sensor silent while out of reach).
    case gap(uptime: Double, sensorTypes: [SensorType], droppedSamples: Int, duration: Double? = nil)
    /// The device failed (vanished, read error); sampling resumes with a gap when it is back.
    case fault(uptime: Double, description: String)
    /// Samples the device delivered ahead of CLOCK_MONOTONIC (an audio card whose clock runs
    /// fast), left out just before `uptime` so that the timeline stays the clock's.
    case discarded(uptime: Double, sensorTypes: [SensorType], count: Int)

    /// When the frame was measured (CLOCK_MONOTONIC seconds).

    public var uptime: Double {
        switch self {
        case .motion(let m): return m.uptime
        case .location(let l): return l.uptime
        case .soundLevel(let s): return s.uptime
        case .audio(let a): return a.uptime
        case .gap(let uptime, _, _, _): return uptime
        case .heartRate(let h): return h.uptime
        case .fault(let uptime, _): return uptime
        case .discarded(let uptime, _, _): return uptime
        }
    }
}
