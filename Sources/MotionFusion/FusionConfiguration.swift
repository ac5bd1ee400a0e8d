import RecorderJSON
import RecorderModel

/// A motion device's fusion settings (its configuration's `"fusion"` member):
/// `"fusion": true` keeps the fusion running whenever the device samples (so that a pre-roll
/// holds fused types), or an object
/// `{"alwaysOn": true, "proportionalGain": 1, "integralGain": 0.3, "accelerationRejection": 15,
/// "magnitudeRejection": 0.15, "recoveryTime": 5}`.
/// Absent, fusion runs only while a recording or subscriber asks for a fused type, with these
/// defaults.
public struct FusionConfiguration: Sendable, Equatable {
    /// Runs whenever the device samples, not only on demand.
    public var alwaysOn = false
    public var gains = MahonyFilter.Gains.standard
    /// Degrees between the accelerometer and the estimated up beyond which a reading is linear
    /// acceleration and does not correct the attitude (180: never rejected).
    public var accelerationRejection = 15.0
    /// g between the accelerometer's magnitude and 1 g beyond which a reading is linear
    /// acceleration (16: never rejected).
    public var magnitudeRejection = 0.15
    /// Seconds of uninterrupted rejection after which the accelerometer is trusted again.
    public var recoveryTime = 5.0

    /// k_P: above 0, at most 100 (1/s).
    public static let proportionalGainRange = NumberRange(greaterThan: 0, atMost: 100, "a gain")
    /// k_I: 0 (no bias estimation) to 100 (1/s²).
    public static let integralGainRange = NumberRange(atLeast: 0, atMost: 100, "a gain")
    /// Above 0, at most 180 degrees.
    public static let accelerationRejectionRange = NumberRange(greaterThan: 0, atMost: 180, "an angle in degrees")
    /// Above 0, at most 16 g.
    public static let magnitudeRejectionRange = NumberRange(greaterThan: 0, atMost: 16, "g")
    /// Above 0, at most an hour.
    public static let recoveryTimeRange = NumberRange(greaterThan: 0, atMost: 3600, "seconds")

    public init(alwaysOn: Bool = false, gains: MahonyFilter.Gains = .standard, accelerationRejection: Double = 15,
                magnitudeRejection: Double = 0.15, recoveryTime: Double = 5) {
        self.alwaysOn = alwaysOn
        self.gains = gains
        self.accelerationRejection = accelerationRejection
        self.magnitudeRejection = magnitudeRejection
        self.recoveryTime = recoveryTime
    }

    /// The rejection these settings ask for.
    public var rejection: AccelerationRejection {
        AccelerationRejection(threshold: accelerationRejection * .pi / 180, magnitudeThreshold: magnitudeRejection, recoveryTime: recoveryTime)
    }
}

extension FusionConfiguration {
    /// The settings of a device object (its other members are the backend's).
    struct Device: Decodable {
        var fusion: FusionConfiguration?

        enum CodingKeys: String, CodingKey { case fusion }
    }
}

extension FusionConfiguration: Decodable {
    enum CodingKeys: String, CodingKey, CaseIterable { case alwaysOn, proportionalGain, integralGain, accelerationRejection, magnitudeRejection, recoveryTime }

    public init(from decoder: any Decoder) throws {
        if let flag = try? decoder.singleValueContainer().decode(Bool.self) {
            self.init(alwaysOn: flag)
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(alwaysOn: try c.decodeIfPresent(Bool.self, forKey: .alwaysOn) ?? false)
        if let p = try c.decodeIfPresent(Double.self, forKey: .proportionalGain, in: Self.proportionalGainRange) { gains.proportional = p }
        if let i = try c.decodeIfPresent(Double.self, forKey: .integralGain, in: Self.integralGainRange) { gains.integral = i }
        if let a = try c.decodeIfPresent(Double.self, forKey: .accelerationRejection, in: Self.accelerationRejectionRange) {
            accelerationRejection = a
        }
        if let m = try c.decodeIfPresent(Double.self, forKey: .magnitudeRejection, in: Self.magnitudeRejectionRange) { magnitudeRejection = m }
        if let r = try c.decodeIfPresent(Double.self, forKey: .recoveryTime, in: Self.recoveryTimeRange) { recoveryTime = r }
    }
}
