// The standard fields by name: `record.uptime` is `record.number(.uptime)`.
extension Record {
    @inlinable public var uptime: Double? {
        get { number(.uptime) }
        set { setNumber(.uptime, newValue) }
    }
    @inlinable public var timestamp: Double? {
        get { number(.timestamp) }
        set { setNumber(.timestamp, newValue) }
    }
    @inlinable public var stepPath: String? {
        get { string(.stepPath) }
        set { setString(.stepPath, newValue) }
    }
    @inlinable public var sensorType: String? {
        get { string(.sensorType) }
        set { setString(.sensorType, newValue) }
    }
    @inlinable public var event: String? {
        get { string(.event) }
        set { setString(.event, newValue) }
    }
    @inlinable public var timestampDate: String? {
        get { string(.timestampDate) }
        set { setString(.timestampDate, newValue) }
    }
    @inlinable public var x: Double? {
        get { number(.x) }
        set { setNumber(.x, newValue) }
    }
    @inlinable public var y: Double? {
        get { number(.y) }
        set { setNumber(.y, newValue) }
    }
    @inlinable public var z: Double? {
        get { number(.z) }
        set { setNumber(.z, newValue) }
    }
    @inlinable public var w: Double? {
        get { number(.w) }
        set { setNumber(.w, newValue) }
    }
    @inlinable public var referenceCoordinate: String? {
        get { string(.referenceCoordinate) }
        set { setString(.referenceCoordinate, newValue) }
    }
    @inlinable public var heading: Double? {
        get { number(.heading) }
        set { setNumber(.heading, newValue) }
    }
    @inlinable public var eventAccuracy: Int? {
        get { integer(.eventAccuracy) }
        set { setInteger(.eventAccuracy, newValue) }
    }
    @inlinable public var droppedSamples: Int? {
        get { integer(.droppedSamples) }
        set { setInteger(.droppedSamples, newValue) }
    }
    @inlinable public var duration: Double? {
        get { number(.duration) }
        set { setNumber(.duration, newValue) }
    }
    @inlinable public var errorDescription: String? {
        get { string(.errorDescription) }
        set { setString(.errorDescription, newValue) }
    }
    @inlinable public var latitude: Double? {
        get { number(.latitude) }
        set { setNumber(.latitude, newValue) }
    }
    @inlinable public var longitude: Double? {
        get { number(.longitude) }
        set { setNumber(.longitude, newValue) }
    }
    @inlinable public var horizontalAccuracy: Double? {
        get { number(.horizontalAccuracy) }
        set { setNumber(.horizontalAccuracy, newValue) }
    }
    @inlinable public var verticalAccuracy: Double? {
        get { number(.verticalAccuracy) }
        set { setNumber(.verticalAccuracy, newValue) }
    }
    @inlinable public var altitude: Double? {
        get { number(.altitude) }
        set { setNumber(.altitude, newValue) }
    }
    @inlinable public var course: Double? {
        get { number(.course) }
        set { setNumber(.course, newValue) }
    }
    @inlinable public var speed: Double? {
        get { number(.speed) }
        set { setNumber(.speed, newValue) }
    }
    @inlinable public var relativeDistance: Double? {
        get { number(.relativeDistance) }
        set { setNumber(.relativeDistance, newValue) }
    }
    @inlinable public var totalDistance: Double? {
        get { number(.totalDistance) }
        set { setNumber(.totalDistance, newValue) }
    }
    @inlinable public var mode: String? {
        get { string(.mode) }
        set { setString(.mode, newValue) }
    }
    @inlinable public var satellitesUsed: Int? {
        get { integer(.satellitesUsed) }
        set { setInteger(.satellitesUsed, newValue) }
    }
    @inlinable public var side: String? {
        get { string(.side) }
        set { setString(.side, newValue) }
    }
    @inlinable public var startUptime: Double? {
        get { number(.startUptime) }
        set { setNumber(.startUptime, newValue) }
    }
    @inlinable public var steps: Int? {
        get { integer(.steps) }
        set { setInteger(.steps, newValue) }
    }
    @inlinable public var cadence: Double? {
        get { number(.cadence) }
        set { setNumber(.cadence, newValue) }
    }
    @inlinable public var distance: Double? {
        get { number(.distance) }
        set { setNumber(.distance, newValue) }
    }
    @inlinable public var walkingSpeed: Double? {
        get { number(.walkingSpeed) }
        set { setNumber(.walkingSpeed, newValue) }
    }
    @inlinable public var strideLength: Double? {
        get { number(.strideLength) }
        set { setNumber(.strideLength, newValue) }
    }
    @inlinable public var timeInterval: Double? {
        get { number(.timeInterval) }
        set { setNumber(.timeInterval, newValue) }
    }
    @inlinable public var average: Double? {
        get { number(.average) }
        set { setNumber(.average, newValue) }
    }
    @inlinable public var peak: Double? {
        get { number(.peak) }
        set { setNumber(.peak, newValue) }
    }
    @inlinable public var unit: String? {
        get { string(.unit) }
        set { setString(.unit, newValue) }
    }
    @inlinable public var heartRate: Int? {
        get { integer(.heartRate) }
        set { setInteger(.heartRate, newValue) }
    }
    @inlinable public var contact: Bool? {
        get { boolean(.contact) }
        set { setBoolean(.contact, newValue) }
    }
    @inlinable public var energyExpended: Int? {
        get { integer(.energyExpended) }
        set { setInteger(.energyExpended, newValue) }
    }
    @inlinable public var rrIntervals: [Double]? {
        get { numbers(.rrIntervals) }
        set { setNumbers(.rrIntervals, newValue) }
    }
}
