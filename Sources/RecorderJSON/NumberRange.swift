/// The range a number from a client or a file must lie in before recorderd uses it, with the
/// words that name it in errors (`expected seconds > 0 and <= 3600`).
///
/// Every bounded number of the configurations and the control protocol is decoded through
/// `KeyedDecodingContainer.decodeIfPresent(_:forKey:in:)` with one of these: the one place where
/// such numbers are checked, before any arithmetic or conversion touches them.
public struct NumberRange: Sendable, Equatable, CustomStringConvertible {
    public let lower: Double
    public let lowerIsExclusive: Bool
    public let upper: Double
    /// What the number is (`seconds`, `a frequency in Hz`).
    public let what: String

    /// `lower < x <= upper`.
    public init(greaterThan lower: Double, atMost upper: Double, _ what: String) {
        self.lower = lower
        lowerIsExclusive = true
        self.upper = upper
        self.what = what
    }

    /// `lower <= x <= upper`.
    public init(atLeast lower: Double, atMost upper: Double, _ what: String) {
        self.lower = lower
        lowerIsExclusive = false
        self.upper = upper
        self.what = what
    }

    /// True when `value` lies in the range (never for NaN or infinity).
    public func contains(_ value: Double) -> Bool {
        value.isFinite && (lowerIsExclusive ? value > lower : value >= lower) && value <= upper
    }

    /// `expected seconds > 0 and <= 3600`.
    public var description: String {
        "expected \(what) \(lowerIsExclusive ? ">" : ">=") \(Self.format(lower)) and <= \(Self.format(upper))"
    }

    public static func format(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}

extension KeyedDecodingContainer {
    /// Decodes an optional number and checks it against `range`; an error names the key's path and
    /// the range.
    public func decodeIfPresent(_ type: Double.Type, forKey key: Key, in range: NumberRange) throws -> Double? {
        guard let value = try decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: range.description)
        }
        return value
    }

    /// Decodes an optional integer (range-checked by the decoder) and checks it against `range`.
    public func decodeIfPresent(_ type: Int.Type, forKey key: Key, in range: ClosedRange<Int>, _ what: String) throws -> Int? {
        guard let value = try decodeIfPresent(Int.self, forKey: key) else { return nil }
        guard range.contains(value) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "expected \(what) between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }
}
