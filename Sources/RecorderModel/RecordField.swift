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

    /// The JSON key, as written in the schema's source (a field is declared, never read from a
    /// file: what a reader does not know it ignores).
    @usableFromInline let name: StaticString
    public let type: ValueType
    @usableFromInline let unitName: StaticString?
    @usableFromInline let valuesText: StaticString?
    /// Where a `Record` keeps the value: an index among the fields of its storage class. The
    /// standard fields' are fixed (`RecordField+Standard.swift`); a schema gives an added field
    /// the next free one (`RecordSchema.adding`).
    @usableFromInline
    let slot: Int

    /// A field: every part of it a constant, so that copying one costs no reference counting
    /// (readers and writers of millions of records pass fields around).
    @inlinable
    init(_ key: StaticString, _ type: ValueType, unit: StaticString? = nil, values: StaticString? = nil, slot: Int) {
        name = key
        self.type = type
        unitName = unit
        valuesText = values
        self.slot = slot
    }

    /// The JSON key.
    public var key: String { name.description }
    /// The unit of the value as recorded (`s`, `m`, `deg`, `count/min`); nil for none, or where
    /// it is the sensor type's (`SensorType.unit`: a motion vector's axes).
    public var unit: String? { unitName?.description }
    /// What a string field's values are, for tables that show them (`left|right`).
    public var values: String? { valuesText?.description }

    public var description: String { key }

    /// The key's bytes.
    var keyBytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount) }

    /// Fields are the same when their keys are (a schema holds a key once).
    public static func == (a: RecordField, b: RecordField) -> Bool {
        a.name.utf8CodeUnitCount == b.name.utf8CodeUnitCount && a.keyBytes.elementsEqual(b.keyBytes)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(bytes: UnsafeRawBufferPointer(keyBytes)) }
}

/// Where a `Record` keeps its values: numbers, whole numbers and booleans as `Double`s, strings,
/// and arrays of numbers, each class in slots of its own.
public enum RecordStorage {
    @usableFromInline
    enum Class: Sendable { case scalar, text, list }

    /// Slots of each class. The standard fields use 32 scalar, 9 string and 1 list slot; the
    /// rest — 16 scalars and a string — is room for fields a schema adds. (Each string and list
    /// slot is reference counted whenever a record is copied: few of them.)
    public static let scalarSlots = 48
    public static let textSlots = 10
    public static let listSlots = 1
}
