import FoundationEssentials
import Glibc

/// Decodes `Decodable` types straight from a `JSONValue`: the one place where numbers from a
/// client or a file become Swift integers.
///
/// Every integer conversion is checked before it is made: the number must be integral, exactly
/// representable (at most 2^53 in magnitude) and inside the target type's range, otherwise a
/// `DecodingError` names the JSON path and the range (`params.subscription: expected an integer
/// between -9223372036854775808 and 9223372036854775807`). Nothing is re-serialised, so every
/// error carries its full coding path. Floating-point values are finite by construction
/// (`JSONParser` refuses numbers a Double cannot hold); bounds on them are checked where they
/// are decoded (`KeyedDecodingContainer.decode(_:forKey:in:)`). A `Date` is an ISO-8601 string,
/// as `TaskResult.makeEncoder` writes it (`TaskResult.makeDecoder`'s rule).
public struct JSONValueDecoder: Sendable {
    public init() {}

    /// Decodes `type` from `value`.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONValueDecoding(value: value, codingPath: []).decodeValue(type)
    }

    /// Parses `data` with `JSONParser` and decodes `type` from it; a parse error is a
    /// `DecodingError.dataCorrupted` at the top level whose description says where.
    public func decode<T: Decodable>(_ type: T.Type, from data: some Collection<UInt8>) throws -> T {
        let value: JSONValue
        do {
            value = try JSONParser.parse(data)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "malformed JSON: \(error)"))
        }
        return try decode(type, from: value)
    }

    /// The largest magnitude an integer may have to be decoded exactly from a JSON number.
    public static let exactIntegerLimit = 9_007_199_254_740_992.0
}

/// The decoder of one value at one coding path.
struct JSONValueDecoding: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self, value) }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self, value) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueContainer(decoder: self) }

    func mismatch(_ type: Any.Type, _ found: JSONValue) -> DecodingError {
        if found == .null {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "found null"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "found \(found.typeName)"))
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if type == JSONValue.self { return value as! T }
        if let scalar = try decodeScalar(type) { return scalar }
        return try T(from: self)
    }

    /// The standard scalar types, decoded without a container; nil for other types.
    func decodeScalar<T>(_ type: T.Type) throws -> T? {
        switch type {
        case is Bool.Type: return try bool() as? T
        case is String.Type: return try string() as? T
        case is Double.Type: return try double() as? T
        case is Float.Type:
            let d = try double()
            guard let f = Float(exactly: d) ?? (abs(d) <= Double(Float.greatestFiniteMagnitude) ? Float(d) : nil) else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "expected a number a Float can hold"))
            }
            return f as? T
        case is Int.Type: return try integer(Int.self) as? T
        case is Int8.Type: return try integer(Int8.self) as? T
        case is Int16.Type: return try integer(Int16.self) as? T
        case is Int32.Type: return try integer(Int32.self) as? T
        case is Int64.Type: return try integer(Int64.self) as? T
        case is UInt.Type: return try integer(UInt.self) as? T
        case is UInt8.Type: return try integer(UInt8.self) as? T
        case is UInt16.Type: return try integer(UInt16.self) as? T
        case is UInt32.Type: return try integer(UInt32.self) as? T
        case is UInt64.Type: return try integer(UInt64.self) as? T
        case is Date.Type: return try date() as? T
        default: return nil
        }
    }

    func bool() throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch(Bool.self, value) }
        return b
    }

    func string() throws -> String {
        guard case .string(let s) = value else { throw mismatch(String.self, value) }
        return s
    }

    /// A date as the protocol and the manifests write it: an ISO-8601 string
    /// (`TaskResult.makeEncoder`), never a number.
    func date() throws -> Date {
        let text = try string()
        guard let date = ISO8601Timestamp.date(from: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "expected an ISO-8601 date, found \"\(text.prefix(40))\""))
        }
        return date
    }

    func double() throws -> Double {
        guard case .number(let d) = value else { throw mismatch(Double.self, value) }
        return d
    }

    /// The checked conversion: integral, exact, in range — or an error naming the range.
    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        guard case .number(let d) = value else { throw mismatch(I.self, value) }
        guard d.isFinite, abs(d) <= JSONValueDecoder.exactIntegerLimit, let i = I(exactly: d) else {
            let low = max(Double(I.min), -JSONValueDecoder.exactIntegerLimit)
            let high = min(Double(I.max), JSONValueDecoder.exactIntegerLimit)
            throw DecodingError.dataCorrupted(.init(
                codingPath: codingPath,
                debugDescription: "expected an integer between \(Int64(low)) and \(UInt64(high))"))
        }
        return i
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    func decoder(for key: Key) throws -> JSONValueDecoding {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "required key is missing"))
        }
        return JSONValueDecoding(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "required key is missing"))
        }
        return value == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder(for: key).decodeValue(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = members[key.stringValue], value != .null else { return nil }
        return try JSONValueDecoding(value: value, codingPath: codingPath + [key]).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JSONValueDecoding(value: .object(members), codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        JSONValueDecoding(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    mutating func next() throws -> JSONValueDecoding {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(JSONValue.self, .init(codingPath: codingPath + [ArrayIndexKey(currentIndex)], debugDescription: "no more elements"))
        }
        defer { currentIndex += 1 }
        return JSONValueDecoding(value: elements[currentIndex], codingPath: codingPath + [ArrayIndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if elements[currentIndex] == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next().decodeValue(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next().unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try next()
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: JSONValueDecoding
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeValue(type)
    }
}

/// An array index as a coding key (for paths such as `devices[2]`).
public struct ArrayIndexKey: CodingKey {
    public var stringValue: String { "\(intValue!)" }
    public var intValue: Int?
    public init(_ index: Int) { intValue = index }
    public init?(stringValue: String) { nil }
    public init?(intValue: Int) { self.intValue = intValue }
}
