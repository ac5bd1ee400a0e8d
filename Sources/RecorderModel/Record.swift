/// Any line of a recorderd JSON-lines file or of a `stream.records` notification, decoded.
/// Every field is optional: markers, samples, gaps and errors share one shape.
public struct Record: Sendable, Equatable, Codable {
    public var uptime: Double?
    public var timestamp: Double?
    public var timestampDate: String?
    public var stepPath: String?
    public var sensorType: String?
    public var event: String?
    public var x: Double?
    public var y: Double?
    public var z: Double?
    /// Attitude records: the quaternion's scalar part, the reference frame, the heading (degrees).
    public var w: Double?
    public var referenceCoordinate: String?
    public var heading: Double?
    /// Magnetic-field records: the calibration accuracy (-1…2).
    public var eventAccuracy: Int?
    public var droppedSamples: Int?
    /// Gap records of audio and heart rate: seconds lost.
    public var duration: Double?
    public var errorDescription: String?
    public var latitude: Double?
    public var longitude: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
    public var altitude: Double?
    public var course: Double?
    public var speed: Double?
    public var relativeDistance: Double?
    public var totalDistance: Double?
    public var mode: String?
    public var satellitesUsed: Int?
    /// Bout records (gait): the first step's uptime, the steps, steps per minute.
    public var startUptime: Double?
    public var steps: Int?
    public var cadence: Double?
    /// Bout records (gait, when the participant's height is known): metres walked, metres per
    /// second, the mean stride length (m). Step records: the stride ending at the step (m).
    public var distance: Double?
    public var walkingSpeed: Double?
    public var strideLength: Double?
    /// Step records (gait): the foot, `left` or `right`, where the analysis tells it.
    public var side: String?
    public var timeInterval: Double?
    public var average: Double?
    public var peak: Double?
    public var unit: String?
    /// Heart-rate records: count/min, the sensor's skin contact, energy expended (kJ), RR
    /// intervals (s).
    public var heartRate: Int?
    public var contact: Bool?
    public var energyExpended: Int?
    public var rrIntervals: [Double]?

    /// A heart-rate record's rate when it is a heart rate (`HeartRateMeasurement.reading`).
    public var heartRateReading: Int? {
        heartRate.flatMap { HeartRateMeasurement.reading(rate: $0, contact: contact) }
    }

    public init() {}

    /// True for a marker line (first line and step changes).
    public var isMarker: Bool { timestampDate != nil && sensorType == nil && event == nil }
    /// True for a gap record.
    public var isGap: Bool { event == "gap" }
    /// True for a measurement (not a marker, gap or error).
    public var isSample: Bool { sensorType != nil && event == nil }
}
