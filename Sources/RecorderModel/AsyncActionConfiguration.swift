import RecorderJSON

/// The kind of an async action (`type` in SageResearch JSON).
public enum AsyncActionType: String, Sendable, Codable, CaseIterable {
    case motion
    case distance
    case microphone
    /// Gait and balance measures computed from a motion device as the samples arrive.
    case gait
    /// Heart rate from a Bluetooth LE sensor (ResearchKit's health-quantity recorder of
    /// `HKQuantityTypeIdentifierHeartRate`, in count/min).
    case heartRate

    /// Accepted spellings of `type`, with aliases.
    public static let acceptedNames = ["motion", "distance", "location", "microphone", "gait", "heartRate"]

    /// Parses a `type` value, accepting `location` for `distance`.
    public init?(name: String) {
        switch name {
        case "motion": self = .motion
        case "distance", "location": self = .distance
        case "microphone": self = .microphone
        case "gait": self = .gait
        case "heartRate": self = .heartRate
        default: return nil
        }
    }

    /// The sensor types a device must provide for this action.
    public var deviceSensorTypes: Set<SensorType> {
        switch self {
        case .motion: return [.accelerometer, .gyro, .magnetometer]
        case .distance: return [.location]
        case .microphone: return [.soundLevel]
        case .gait: return [.accelerometer]
        case .heartRate: return [.heartRate]
        }
    }

    /// The action type whose devices serve this one (a gait analysis reads a motion device).
    public var deviceActionType: AsyncActionType {
        switch self {
        case .gait: return .motion
        default: return self
        }
    }
}

/// Options of a `motion` recorder.
public struct MotionOptions: Sendable, Equatable {
    /// Sensor types to record, default accelerometer and gyro.
    public var recorderTypes: [SensorType] = [.accelerometer, .gyro]
    /// Requested sampling frequency in Hz (default 100).
    public var frequency: Double = 100
    public var shouldDeletePrevious: Bool = true
    /// Seconds of samples before the start step to include (ours; default 0).
    public var preRollSeconds: Double = 0

    /// Allowed requested frequencies and pre-roll durations.
    public static let frequencyRange = NumberRange(greaterThan: 0, atMost: 100_000, "a frequency in Hz")
    public static let preRollRange = NumberRange(atLeast: 0, atMost: 3600, "seconds")

    public init(recorderTypes: [SensorType] = [.accelerometer, .gyro], frequency: Double = 100,
                shouldDeletePrevious: Bool = true, preRollSeconds: Double = 0) {
        self.recorderTypes = recorderTypes
        self.frequency = frequency
        self.shouldDeletePrevious = shouldDeletePrevious
        self.preRollSeconds = preRollSeconds
    }
}

/// Options of a `distance` (alias `location`) recorder.
public struct DistanceOptions: Sendable, Equatable {
    /// Write latitude and longitude (default false, as SageResearch).
    public var saveCoordinates: Bool = false
    public var motionStepIdentifier: String?
    /// Fixes count for distance only when their horizontal accuracy is better than this (m; ours, default 20).
    public var horizontalAccuracyThreshold: Double = 20

    /// Allowed accuracy thresholds.
    public static let accuracyThresholdRange = NumberRange(greaterThan: 0, atMost: 100_000, "metres")

    public init(saveCoordinates: Bool = false, motionStepIdentifier: String? = nil, horizontalAccuracyThreshold: Double = 20) {
        self.saveCoordinates = saveCoordinates
        self.motionStepIdentifier = motionStepIdentifier
        self.horizontalAccuracyThreshold = horizontalAccuracyThreshold
    }
}

/// Options of a `heartRate` recorder: none yet (the sensor decides what it sends).
public struct HeartRateOptions: Sendable, Equatable {
    public init() {}
}

/// Options of a `microphone` recorder.
public struct MicrophoneOptions: Sendable, Equatable {
    public var saveAudioFile: Bool = false
    /// Seconds per sound-level record (default 1).
    public var levelInterval: Double = 1

    /// Allowed level intervals: at least 10 ms (a level per frame would be a record per sample).
    public static let levelIntervalRange = NumberRange(atLeast: 0.01, atMost: 3600, "seconds")
    public var sampleRate: Int?
    public var channels: Int?

    public init(saveAudioFile: Bool = false, levelInterval: Double = 1, sampleRate: Int? = nil, channels: Int? = nil) {
        self.saveAudioFile = saveAudioFile
        self.levelInterval = levelInterval
        self.sampleRate = sampleRate
        self.channels = channels
    }
}

/// One async-action configuration (SageResearch-compatible JSON plus recorderd's additions).
public struct AsyncActionConfiguration: Sendable, Equatable {
    /// The type-specific options.
    public enum Options: Sendable, Equatable {
        case motion(MotionOptions)
        case distance(DistanceOptions)
        case microphone(MicrophoneOptions)
        case gait(GaitOptions)
        case heartRate(HeartRateOptions)

        public var type: AsyncActionType {
            switch self {
            case .motion: return .motion
            case .distance: return .distance
            case .microphone: return .microphone
            case .gait: return .gait
            case .heartRate: return .heartRate
            }
        }
    }

    /// Unique in a task run; becomes the file name.
    public var identifier: String
    public var startStepIdentifier: String?
    public var stopStepIdentifier: String?
    /// Accepted for compatibility; no effect.
    public var requiresBackgroundAudio: Bool
    /// The configured device to use; nil: the first of the right kind.
    public var device: String?
    public var options: Options

    public var type: AsyncActionType { options.type }

    public init(identifier: String, startStepIdentifier: String? = nil, stopStepIdentifier: String? = nil,
                requiresBackgroundAudio: Bool = false, device: String? = nil, options: Options) {
        self.identifier = identifier
        self.startStepIdentifier = startStepIdentifier
        self.stopStepIdentifier = stopStepIdentifier
        self.requiresBackgroundAudio = requiresBackgroundAudio
        self.device = device
        self.options = options
    }

    /// A motion recorder.
    public static func motion(_ identifier: String, startStepIdentifier: String? = nil, stopStepIdentifier: String? = nil,
                              device: String? = nil, options: MotionOptions = MotionOptions()) -> Self {
        Self(identifier: identifier, startStepIdentifier: startStepIdentifier, stopStepIdentifier: stopStepIdentifier,
             device: device, options: .motion(options))
    }
}
