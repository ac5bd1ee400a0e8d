import RecorderModel

/// A motion device's fusion settings (its configuration's `"fusion"` member):
/// `"fusion": true` keeps the fusion running whenever the device samples (so that a pre-roll
/// holds fused types), or an object `{"alwaysOn": true, "proportionalGain": 1, "integralGain": 0.3}`.
/// Absent, fusion runs only while a recording or subscriber asks for a fused type, with Mahony's
/// standard gains.
public struct FusionConfiguration: Sendable, Equatable {
    /// Runs whenever the device samples, not only on demand.
    public var alwaysOn = false
    public var gains = MahonyFilter.Gains.standard

    /// k_P: above 0, at most 100 (1/s).
    public static let proportionalGainRange = NumberRange(greaterThan: 0, atMost: 100, "a gain")
    /// k_I: 0 (no bias estimation) to 100 (1/s²).
    public static let integralGainRange = NumberRange(atLeast: 0, atMost: 100, "a gain")

    public init(alwaysOn: Bool = false, gains: MahonyFilter.Gains = .standard) {
        self.alwaysOn = alwaysOn
        self.gains = gains
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
    enum CodingKeys: String, CodingKey { case alwaysOn, proportionalGain, integralGain }

    public init(from decoder: any Decoder) throws {
        if let flag = try? decoder.singleValueContainer().decode(Bool.self) {
            self.init(alwaysOn: flag)
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var gains = MahonyFilter.Gains.standard
        if let p = try c.decodeIfPresent(Double.self, forKey: .proportionalGain, in: Self.proportionalGainRange) { gains.proportional = p }
        if let i = try c.decodeIfPresent(Double.self, forKey: .integralGain, in: Self.integralGainRange) { gains.integral = i }
        self.init(alwaysOn: try c.decodeIfPresent(Bool.self, forKey: .alwaysOn) ?? false, gains: gains)
    }
}
