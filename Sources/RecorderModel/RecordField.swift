/// One key a record may carry: its JSON key, the type of its value and its unit. Every field of
/// recorderd's records is declared once, in `RecordField+Standard.swift`; `RecordKind` says which
/// fields each kind of record has and in which order, and every writer and reader of records
/// (the JSON-lines encoder, its decoder, the exports) goes by them.
public struct RecordField: Sendable, Hashable, CustomStringConvertible {
    /// What a field's value is, in JSON and in a `Record`.
    public enum ValueType: String, Sendable, Hashable, CaseIterable {
        /// A number, written in shortest round-trip form.
        case number
        /// Seconds of a clock (`uptime`, `timestamp`): a number, written by the recorders to the
        /// nanosecond.
        case time
        /// A whole number (read exactly up to 2⁵³).
        case integer
        case boolean
        case string
        /// An array of numbers.
        case numbers

        /// The JSON schema type of a value (`number`, `integer`, `boolean`, `string`, `array`).
        public var jsonSchemaType: String {
            switch self {
            case .number, .time: "number"
            case .integer: "integer"
            case .boolean: "boolean"
            case .string: "string"
            case .numbers: "array"
            }
        }

        /// Where a `Record` keeps a value of this type.
        @usableFromInline
        var storage: RecordStorage.Class {
            switch self {
            case .number, .time, .integer, .boolean: .scalar
            case .string: .text
            case .numbers: .list
            }
        }
    }

    /// The JSON key.
    public let key: String
    public let type: ValueType
    /// The unit of the value as recorded (`s`, `m`, `deg`, `count/min`); nil for none, or where
    /// it is the sensor type's (`SensorType.unit`: a motion vector's axes).
    public let unit: String?
    /// What a string field's values are, for tables that show them (`left|right`).
    public let values: String?
    /// Where a `Record` keeps the value: an index among the fields of its storage class. The
    /// standard fields' are fixed (`RecordField+Standard.swift`); a schema gives an added field
    /// the next free one (`RecordSchema.adding`).
    @usableFromInline
    let slot: Int

    @inlinable
    init(_ key: String, _ type: ValueType, unit: String? = nil, values: String? = nil, slot: Int) {
        self.key = key
        self.type = type
        self.unit = unit
        self.values = values
        self.slot = slot
    }

    public var description: String { key }

    /// Fields are the same when their keys are (a schema holds a key once).
    public static func == (a: RecordField, b: RecordField) -> Bool { a.key == b.key }

    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
}

/// Where a `Record` keeps its values: numbers, whole numbers and booleans as `Double`s, strings,
/// and arrays of numbers, each class in slots of its own.
public enum RecordStorage {
    @usableFromInline
    enum Class: Sendable { case scalar, text, list }

    /// Slots of each class: the standard fields use 32 scalar, 9 string and 1 list slots; the
    /// rest is room for fields a schema adds (`RecordSchema.adding`).
    public static let scalarSlots = 48
    public static let textSlots = 12
    public static let listSlots = 2
}
