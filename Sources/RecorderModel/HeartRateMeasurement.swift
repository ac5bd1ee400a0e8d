/// One Heart Rate Measurement (Bluetooth SIG GATT characteristic 0x2A37) as a sensor notified
/// it: the rate, sensor contact, energy expended and RR intervals.
public struct HeartRateMeasurement: Sendable, Equatable {
    /// CLOCK_MONOTONIC seconds at reception (notifications carry no time of their own).
    public var uptime: Double
    /// Beats per minute (`count/min`).
    public var heartRate: Int
    /// Whether the sensor touches the skin; nil when the sensor does not say.
    public var contact: Bool?
    /// Energy expended since the sensor's last reset, kJ; nil when absent.
    public var energyExpended: Int?
    /// RR intervals, seconds, oldest first (each a whole count of 1/1024 s: exact as a `Double`).
    public var rrIntervals: [Double]

    public init(uptime: Double, heartRate: Int, contact: Bool? = nil, energyExpended: Int? = nil, rrIntervals: [Double] = []) {
        self.uptime = uptime
        self.heartRate = heartRate
        self.contact = contact
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    /// The rate as a heart rate, or nil for a reading without skin contact (contact lost, or a
    /// rate of 0: sensors send 0 when they measure nothing). Statistics, plots and exports leave
    /// those out.
    public static func reading(rate: Int, contact: Bool?) -> Int? {
        contact == false || rate <= 0 ? nil : rate
    }
}
