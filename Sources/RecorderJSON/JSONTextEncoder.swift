import FoundationEssentials
import Glibc

/// Encodes `Encodable` values as one line of compact JSON text: the control protocol's encoder,
/// for request params and response results.
///
/// It writes what `TaskResult.makeEncoder(pretty:)` writes (keys sorted, dates as ISO-8601
/// strings, slashes unescaped, whole doubles without `.0`, non-finite numbers an error; pretty:
/// Foundation's indentation) for a small part of Foundation's work: each scalar becomes its text
/// as it is encoded, and containers are joined once at the end. Integers are written exactly,
/// whatever their size.
public struct JSONTextEncoder: Sendable {
    /// Two spaces a level and `"key" : value`, as Foundation's `.prettyPrinted` (the manifests).
    public var prettyPrinted: Bool

    public init(prettyPrinted: Bool = false) {
        self.prettyPrinted = prettyPrinted
    }

    /// The JSON text of `value`.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        try encode(value, into: &bytes)
        return bytes
    }

    /// Appends the JSON text of `value` to `bytes`.
    public func encode<T: Encodable>(_ value: T, into bytes: inout [UInt8]) throws {
        let slot = JSONTextSlot()
        try JSONTextEncoding(slot: slot).encodeValue(value)
        if prettyPrinted {
            slot.writePretty(into: &bytes, level: 0)
        } else {
            slot.write(into: &bytes)
        }
    }
}

/// One value being encoded: its text once it is a scalar, or its members or elements.
///
/// A slot knows its parent and its key or index, so that a coding path is built only when one is
/// asked for (an error), not for every value.
final class JSONTextSlot {
    enum Content {
        case unset
        case text([UInt8])
        /// In the order encoded; sorted, and the last of a repeated key kept, when written.
        case object([(key: String, slot: JSONTextSlot)])
        case array([JSONTextSlot])
    }

    var content = Content.unset
    // unowned(unsafe): a parent owns its children and outlives them while a value is encoded;
    // an `Encoder` is not used after the `encode(to:)` it was given to returns.
    unowned(unsafe) let parent: JSONTextSlot?
    let key: String?
    let index: Int

    init(parent: JSONTextSlot? = nil, key: String? = nil, index: Int = -1) {
        self.parent = parent
        self.key = key
        self.index = index
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var slot: JSONTextSlot? = self
        while let s = slot, s.parent != nil {
            if let key = s.key { path.append(JSONTextKey(key)) } else { path.append(ArrayIndexKey(s.index)) }
            slot = s.parent
        }
        return path.reversed()
    }

    /// A new member `key` of this slot's object (making it one).
    func member(_ key: String) -> JSONTextSlot {
        let slot = JSONTextSlot(parent: self, key: key)
        if case .object(var members) = content {
            content = .unset
            members.append((key, slot))
            content = .object(members)
        } else {
            content = .object([(key, slot)])
        }
        return slot
    }

    func makeObject() {
        if case .object = content { return }
        content = .object([])
    }

    func makeArray() {
        if case .array = content { return }
        content = .array([])
    }

    /// A new element at the end of this slot's array.
    func appendElement() -> JSONTextSlot {
        if case .array(var elements) = content {
            content = .unset
            let slot = JSONTextSlot(parent: self, index: elements.count)
            elements.append(slot)
            content = .array(elements)
            return slot
        }
        let slot = JSONTextSlot(parent: self, index: 0)
        content = .array([slot])
        return slot
    }

    /// The members in key order, each key once (the last encoded wins, as in Foundation).
    static func sorted(_ members: [(key: String, slot: JSONTextSlot)]) -> [(key: String, slot: JSONTextSlot)] {
        let order = members.indices.sorted { a, b in
            members[a].key != members[b].key ? members[a].key < members[b].key : a < b
        }
        var result: [(key: String, slot: JSONTextSlot)] = []
        result.reserveCapacity(members.count)
        for i in order {
            if let last = result.last, last.key == members[i].key { result.removeLast() }
            result.append(members[i])
        }
        return result
    }

    func write(into bytes: inout [UInt8]) {
        switch content {
        case .unset: bytes += "{}".utf8
        case .text(let text): bytes += text
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (i, member) in JSONTextSlot.sorted(members).enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONTextSlot.appendString(member.key, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                member.slot.write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }
    }

    /// The pretty form at nesting `level`: members and elements one a line, indented two spaces a
    /// level; an empty container is its brackets around an empty line.
    func writePretty(into bytes: inout [UInt8], level: Int) {
        func newline(_ level: Int) {
            bytes.append(UInt8(ascii: "\n"))
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
        }
        switch content {
        case .text(let text): bytes += text
        case .unset, .object:
            var members: [(key: String, slot: JSONTextSlot)] = []
            if case .object(let m) = content { members = JSONTextSlot.sorted(m) }
            bytes.append(UInt8(ascii: "{"))
            if members.isEmpty { bytes.append(UInt8(ascii: "\n")) }
            for (i, member) in members.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(level + 1)
                JSONTextSlot.appendString(member.key, to: &bytes)
                bytes += " : ".utf8
                member.slot.writePretty(into: &bytes, level: level + 1)
            }
            newline(level)
            bytes.append(UInt8(ascii: "}"))
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            if elements.isEmpty { bytes.append(UInt8(ascii: "\n")) }
            for (i, element) in elements.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(level + 1)
                element.writePretty(into: &bytes, level: level + 1)
            }
            newline(level)
            bytes.append(UInt8(ascii: "]"))
        }
    }

    static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// A JSON string literal as Foundation writes it: `"` and `\` escaped, `\b \f \n \r \t`, other
    /// control characters as `\u00XX`, everything else (slashes, non-ASCII) as it is.
    static func appendString(_ s: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            // Most strings (keys, identifiers, paths) need no escape: one copy.
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                bytes.append(contentsOf: utf8)
                return
            }
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): bytes += #"\""#.utf8
                case UInt8(ascii: "\\"): bytes += #"\\"#.utf8
                case 0x08: bytes += #"\b"#.utf8
                case 0x0C: bytes += #"\f"#.utf8
                case 0x0A: bytes += #"\n"#.utf8
                case 0x0D: bytes += #"\r"#.utf8
                case 0x09: bytes += #"\t"#.utf8
                case 0..<0x20:
                    bytes += #"\u00"#.utf8
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xF)])
                default: bytes.append(byte)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// The encoder of one value.
struct JSONTextEncoding: Encoder {
    let slot: JSONTextSlot
    var codingPath: [any CodingKey] { slot.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        slot.makeObject()
        return KeyedEncodingContainer(JSONTextKeyedContainer<Key>(slot: slot))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        slot.makeArray()
        return JSONTextUnkeyedContainer(slot: slot)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONTextSingleValueContainer(encoder: self)
    }

    func set(_ text: String) { slot.content = .text(Array(text.utf8)) }

    func encodeNil() { slot.content = .text(Array("null".utf8)) }

    func encode(_ value: Bool) { set(value ? "true" : "false") }

    func encode(_ value: String) {
        var text: [UInt8] = []
        text.reserveCapacity(value.utf8.count + 2)
        JSONTextSlot.appendString(value, to: &text)
        slot.content = .text(text)
    }

    /// A finite double or float, as Foundation writes it: the shortest text that reads back the
    /// same, without a trailing `.0`.
    func encode(float value: some BinaryFloatingPoint & CustomStringConvertible) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(value) is not a JSON number"))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        set(text)
    }

    func encode(integer value: some FixedWidthInteger) { set(String(value)) }

    /// Any value: the types Foundation's encoder writes its own way (dates, as the protocol has
    /// them; URLs; data), or the value's own encoding.
    func encodeValue<T: Encodable>(_ value: T) throws {
        if T.self == Date.self {
            var text: [UInt8] = []
            text.reserveCapacity(31)
            ISO8601Timestamp.append(value as! Date, quoted: true, to: &text)
            slot.content = .text(text)
        } else if T.self == URL.self {
            encode((value as! URL).absoluteString)
        } else if T.self == Data.self {
            encode((value as! Data).base64EncodedString())
        } else {
            try value.encode(to: self)
        }
    }
}

private struct JSONTextKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: JSONTextSlot
    var codingPath: [any CodingKey] { slot.codingPath }

    func encoder(for key: some CodingKey) -> JSONTextEncoding {
        JSONTextEncoding(slot: slot.member(key.stringValue))
    }

    mutating func encodeNil(forKey key: Key) { encoder(for: key).encodeNil() }
    mutating func encode(_ value: Bool, forKey key: Key) { encoder(for: key).encode(value) }
    mutating func encode(_ value: String, forKey key: Key) { encoder(for: key).encode(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try encoder(for: key).encode(float: value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encoder(for: key).encode(float: value) }
    mutating func encode(_ value: Int, forKey key: Key) { encoder(for: key).encode(integer: value) }
    mutating func encode(_ value: Int8, forKey key: Key) { encoder(for: key).encode(integer: value) }
    mutating func encode(_ value: Int16, forKey key: Key) { encoder(for: key).encode(integer: value) }
    mutating func encode(_ value: Int32, forKey key: Key) { encoder(for: key).encode(integer: value) }
    mutating func encode(_ value: Int64, forKey key: Key) { encoder(for: key).encode(integer: value) }
    mutating func encode(_ value: UInt, forKey key: Key) { encoder(for: key).encode(integer: value) }
    mutating func encode(_ value: UInt8, forKey key: Key) { encoder(for: key).encode(integer: value) }
    mutating func encode(_ value: UInt16, forKey key: Key) { encoder(for: key).encode(integer: value) }
    mutating func encode(_ value: UInt32, forKey key: Key) { encoder(for: key).encode(integer: value) }
    mutating func encode(_ value: UInt64, forKey key: Key) { encoder(for: key).encode(integer: value) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder(for: key).encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder(for: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder(for: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { encoder(for: JSONTextKey()) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder(for: key) }
}

private struct JSONTextUnkeyedContainer: UnkeyedEncodingContainer {
    let slot: JSONTextSlot
    var codingPath: [any CodingKey] { slot.codingPath }

    var count: Int {
        if case .array(let elements) = slot.content { return elements.count }
        return 0
    }

    func next() -> JSONTextEncoding {
        JSONTextEncoding(slot: slot.appendElement())
    }

    mutating func encodeNil() { next().encodeNil() }
    mutating func encode(_ value: Bool) { next().encode(value) }
    mutating func encode(_ value: String) { next().encode(value) }
    mutating func encode(_ value: Double) throws { try next().encode(float: value) }
    mutating func encode(_ value: Float) throws { try next().encode(float: value) }
    mutating func encode(_ value: Int) { next().encode(integer: value) }
    mutating func encode(_ value: Int8) { next().encode(integer: value) }
    mutating func encode(_ value: Int16) { next().encode(integer: value) }
    mutating func encode(_ value: Int32) { next().encode(integer: value) }
    mutating func encode(_ value: Int64) { next().encode(integer: value) }
    mutating func encode(_ value: UInt) { next().encode(integer: value) }
    mutating func encode(_ value: UInt8) { next().encode(integer: value) }
    mutating func encode(_ value: UInt16) { next().encode(integer: value) }
    mutating func encode(_ value: UInt32) { next().encode(integer: value) }
    mutating func encode(_ value: UInt64) { next().encode(integer: value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try next().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }

    mutating func superEncoder() -> any Encoder { next() }
}

private struct JSONTextSingleValueContainer: SingleValueEncodingContainer {
    let encoder: JSONTextEncoding
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() { encoder.encodeNil() }
    mutating func encode(_ value: Bool) { encoder.encode(value) }
    mutating func encode(_ value: String) { encoder.encode(value) }
    mutating func encode(_ value: Double) throws { try encoder.encode(float: value) }
    mutating func encode(_ value: Float) throws { try encoder.encode(float: value) }
    mutating func encode(_ value: Int) { encoder.encode(integer: value) }
    mutating func encode(_ value: Int8) { encoder.encode(integer: value) }
    mutating func encode(_ value: Int16) { encoder.encode(integer: value) }
    mutating func encode(_ value: Int32) { encoder.encode(integer: value) }
    mutating func encode(_ value: Int64) { encoder.encode(integer: value) }
    mutating func encode(_ value: UInt) { encoder.encode(integer: value) }
    mutating func encode(_ value: UInt8) { encoder.encode(integer: value) }
    mutating func encode(_ value: UInt16) { encoder.encode(integer: value) }
    mutating func encode(_ value: UInt32) { encoder.encode(integer: value) }
    mutating func encode(_ value: UInt64) { encoder.encode(integer: value) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}

/// A member's key in a coding path, or `super`, as Foundation names a superclass's encoder.
private struct JSONTextKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ key: String) { stringValue = key }
    init() { stringValue = "super" }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
