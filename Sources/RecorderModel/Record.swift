/// Any line of a recorderd JSON-lines file or of a `stream.records` notification, decoded: the
/// values of the fields it carries (`RecordField`), whichever kind of record it is
/// (`RecordKind`). A field's value is read and set by the field (`record[.x]`, `number(_:)`) or,
/// for recorderd's standard fields, by name (`record.x`).
public struct Record: Sendable {
    /// Numbers, whole numbers and booleans (1 or 0), by slot; `present` says which are set.
    @usableFromInline var scalars = InlineArray<48, Double>(repeating: 0)
    @usableFromInline var present: UInt64 = 0
    @usableFromInline var texts = InlineArray<10, String?>(repeating: nil)
    @usableFromInline var lists = InlineArray<1, [Double]?>(repeating: nil)

    @inlinable
    public init() {}

    // MARK: By field

    /// True when the record carries `field`.
    @inlinable
    public func has(_ field: RecordField) -> Bool {
        switch field.type.storage {
        case .scalar: present & (1 &<< UInt64(field.slot)) != 0
        case .text: texts[field.slot] != nil
        case .list: lists[field.slot] != nil
        }
    }

    /// A numeric field's value (a number, a time, a whole number, or a boolean as 1 or 0).
    @inlinable
    public func number(_ field: RecordField) -> Double? {
        present & (1 &<< UInt64(field.slot)) != 0 ? scalars[field.slot] : nil
    }

    @inlinable
    public mutating func setNumber(_ field: RecordField, _ value: Double?) {
        if let value {
            scalars[field.slot] = value
            present |= 1 &<< UInt64(field.slot)
        } else {
            present &= ~(1 &<< UInt64(field.slot))
        }
    }

    /// A whole-number field's value.
    @inlinable
    public func integer(_ field: RecordField) -> Int? {
        // Whole and in range when set by `setInteger` or read by the decoder; clamped otherwise.
        number(field).map { Int(exactly: $0.rounded(.towardZero)) ?? ($0 < 0 ? .min : .max) }
    }

    @inlinable
    public mutating func setInteger(_ field: RecordField, _ value: Int?) {
        setNumber(field, value.map(Double.init))
    }

    @inlinable
    public func boolean(_ field: RecordField) -> Bool? {
        number(field).map { $0 != 0 }
    }

    @inlinable
    public mutating func setBoolean(_ field: RecordField, _ value: Bool?) {
        setNumber(field, value.map { $0 ? 1 : 0 })
    }

    @inlinable
    public func string(_ field: RecordField) -> String? {
        texts[field.slot]
    }

    @inlinable
    public mutating func setString(_ field: RecordField, _ value: String?) {
        texts[field.slot] = value
    }

    @inlinable
    public func numbers(_ field: RecordField) -> [Double]? {
        lists[field.slot]
    }

    @inlinable
    public mutating func setNumbers(_ field: RecordField, _ value: [Double]?) {
        lists[field.slot] = value
    }

    /// The value of `field` (typed as the field is), or nil when absent.
    public subscript(field: RecordField) -> RecordValue? {
        get {
            switch field.type {
            case .number, .time: number(field).map(RecordValue.number)
            case .integer: integer(field).map(RecordValue.integer)
            case .boolean: boolean(field).map(RecordValue.boolean)
            case .string: string(field).map(RecordValue.string)
            case .numbers: numbers(field).map(RecordValue.numbers)
            }
        }
        set {
            switch (field.type.storage, newValue) {
            case (_, nil):
                switch field.type.storage {
                case .scalar: setNumber(field, nil)
                case .text: setString(field, nil)
                case .list: setNumbers(field, nil)
                }
            case (.scalar, .number(let v)?): setNumber(field, v)
            case (.scalar, .integer(let v)?): setInteger(field, v)
            case (.scalar, .boolean(let v)?): setBoolean(field, v)
            case (.text, .string(let v)?): setString(field, v)
            case (.list, .numbers(let v)?): setNumbers(field, v)
            case (_, let v?): preconditionFailure("\(field.key) is a \(field.type.rawValue) field, not \(v)")
            }
        }
    }

    // MARK: Kinds

    /// True for a marker line (first line and step changes).
    public var isMarker: Bool { timestampDate != nil && sensorType == nil && event == nil }
    /// True for a gap record.
    public var isGap: Bool { event == "gap" }
    /// True for a measurement (not a marker, gap or error).
    public var isSample: Bool { sensorType != nil && event == nil }

    /// A heart-rate record's rate when it is a heart rate (`HeartRateMeasurement.reading`).
    public var heartRateReading: Int? {
        heartRate.flatMap { HeartRateMeasurement.reading(rate: $0, contact: contact) }
    }
}

extension Record: Equatable {
    /// The same fields with the same values (numbers compared as numbers).
    public static func == (a: Record, b: Record) -> Bool {
        guard a.present == b.present else { return false }
        var bits = a.present
        while bits != 0 {
            let slot = bits.trailingZeroBitCount
            if a.scalars[slot] != b.scalars[slot] { return false }
            bits &= bits &- 1
        }
        for i in a.texts.indices where a.texts[i] != b.texts[i] { return false }
        for i in a.lists.indices where a.lists[i] != b.lists[i] { return false }
        return true
    }
}

/// A field's value, typed as the field is.
public enum RecordValue: Sendable, Equatable {
    case number(Double)
    case integer(Int)
    case boolean(Bool)
    case string(String)
    case numbers([Double])
}
