import RecorderJSON

extension Record {
    /// The record a JSON object is, by `schema`'s fields: each key the schema knows with a value
    /// of its field's type (null: absent), other keys ignored (a newer recorderd's fields). What
    /// `JSONLinesDecoder` reads a line through when it is not in the encoder's plain form, and
    /// what `Codable` decodes with.
    public init(_ value: JSONValue, schema: RecordSchema = .standard) throws(DecodingError) {
        guard case .object(let members) = value else {
            throw DecodingError.typeMismatch(Record.self, .init(codingPath: [], debugDescription: "expected an object, found \(value.typeName)"))
        }
        self.init()
        for (key, member) in members {
            guard let field = schema.field(key) else { continue }
            try set(field, member)
        }
    }

    /// Sets `field` from its JSON value; a value of another type is an error naming the key.
    mutating func set(_ field: RecordField, _ value: JSONValue) throws(DecodingError) {
        func mismatch(_ type: Any.Type) -> DecodingError {
            .typeMismatch(type, .init(codingPath: [RecordCodingKey(field.key)], debugDescription: "found \(value.typeName)"))
        }
        if value == .null { return }
        switch (field.type, value) {
        case (.number, .number(let d)), (.time, .number(let d)): setNumber(field, d)
        case (.integer, .number(let d)):
            guard let whole = Self.exactInteger(d) else {
                let limit = Int64(JSONValueDecoder.exactIntegerLimit)
                throw .dataCorrupted(.init(codingPath: [RecordCodingKey(field.key)], debugDescription: "expected an integer between \(-limit) and \(limit)"))
            }
            setNumber(field, whole)
        case (.boolean, .bool(let b)): setBoolean(field, b)
        case (.string, .string(let s)): setString(field, s)
        case (.numbers, .array(let elements)):
            var numbers: [Double] = []
            numbers.reserveCapacity(elements.count)
            for element in elements {
                guard case .number(let d) = element else { throw mismatch([Double].self) }
                numbers.append(d)
            }
            setNumbers(field, numbers)
        case (.number, _), (.time, _): throw mismatch(Double.self)
        case (.integer, _): throw mismatch(Int.self)
        case (.boolean, _): throw mismatch(Bool.self)
        case (.string, _): throw mismatch(String.self)
        case (.numbers, _): throw mismatch([Double].self)
        }
    }

    /// `d` when it is a whole number JSON readers read exactly (|d| ≤ 2⁵³); the one test of a
    /// whole-number field's value, for every reader of records.
    @inline(__always)
    static func exactInteger(_ d: Double) -> Double? {
        d.isFinite && d == d.rounded(.towardZero) && abs(d) <= JSONValueDecoder.exactIntegerLimit ? d : nil
    }

    /// The fields the record carries, as `schema` writes them: its kind's in the kind's order,
    /// then any others in the schema's.
    public func presentFields(schema: RecordSchema = .standard) -> [RecordField] {
        let kind = schema.kind(of: self)?.fields ?? []
        return kind.filter(has) + schema.fields.filter { has($0) && !kind.contains($0) }
    }
}

/// A field's key as a `CodingKey` (the path of a decoding error).
struct RecordCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ key: String) { stringValue = key }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Record: Codable {
    /// Decodes a record as any JSON reader hands it over: its value, then `init(_:schema:)`.
    /// Each key the standard schema knows is read as its field's type first, so a well-formed
    /// record is read without a thrown error (a failed attempt per field, with a test runner that
    /// captures a backtrace per throw, made reading a file the slowest part of a test); a value of
    /// another type is read as a `JSONValue`, and `init(_:schema:)` names the mismatch as for every
    /// reader. Keys the schema does not know are ignored, as there.
    public init(from decoder: any Decoder) throws {
        guard let container = try? decoder.container(keyedBy: RecordCodingKey.self) else {
            try self.init(JSONValue(from: decoder))
            return
        }
        var members: [String: JSONValue] = [:]
        for key in container.allKeys {
            guard let field = RecordSchema.standard.field(key.stringValue) else { continue }
            members[key.stringValue] = try Self.value(of: field.type, forKey: key, in: container)
        }
        try self.init(.object(members))
    }

    /// The value at `key`, read as `type` first and as any JSON value if it is not one.
    private static func value(of type: RecordField.ValueType, forKey key: RecordCodingKey,
                              in container: KeyedDecodingContainer<RecordCodingKey>) throws -> JSONValue {
        switch type {
        case .number, .time, .integer:
            if let d = try? container.decode(Double.self, forKey: key) { return .number(d) }
        case .string:
            if let s = try? container.decode(String.self, forKey: key) { return .string(s) }
        case .boolean:
            if let b = try? container.decode(Bool.self, forKey: key) { return .bool(b) }
        case .numbers:
            if let a = try? container.decode([Double].self, forKey: key) { return .array(a.map(JSONValue.number)) }
        }
        return try container.decode(JSONValue.self, forKey: key)
    }

    /// Encodes the fields the record carries (`presentFields`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: RecordCodingKey.self)
        for field in presentFields() {
            let key = RecordCodingKey(field.key)
            switch self[field] {
            case .number(let v)?: try c.encode(v, forKey: key)
            case .integer(let v)?: try c.encode(v, forKey: key)
            case .boolean(let v)?: try c.encode(v, forKey: key)
            case .string(let v)?: try c.encode(v, forKey: key)
            case .numbers(let v)?: try c.encode(v, forKey: key)
            case nil: break
            }
        }
    }
}
