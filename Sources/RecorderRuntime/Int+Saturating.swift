extension Int {
    /// `value` rounded toward zero and clamped to `Int`'s range (NaN is 0): for arithmetic on
    /// values already range-checked, where `Int(_:)` would trap on a surprise instead of
    /// degrading. Numbers from outside are checked first (`NumberRange`, `JSONValueDecoder`);
    /// nothing converts an unchecked Double with `Int(_:)`.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9.223_372_036_854_775_807e18 {
            self = .max
        } else if value <= -9.223_372_036_854_775_808e18 {
            self = .min
        } else {
            self = Int(value)
        }
    }
}
