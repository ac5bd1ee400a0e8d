import FoundationEssentials
import Glibc

/// A strict JSON parser (RFC 8259) into `JSONValue`: what every request line and every
/// configuration file goes through before it is decoded.
///
/// Unlike Foundation's decoder it is bounded and exact where recorderd needs it: nesting is
/// limited (`maximumDepth`, iterative — no recursion a deep document could exhaust), numbers whose
/// magnitude a Double cannot hold are an error (never infinity), duplicate object keys are an
/// error (never a silent choice), invalid UTF-8, lone surrogates and raw control characters in
/// strings are refused, and the raw text of every member of a top-level object is kept (the
/// JSON-RPC `id` is echoed exactly as received, whatever its size).
public enum JSONParser {
    /// Nesting deeper than this is refused.
    public static let defaultMaximumDepth = 64

    /// A parsed document: its value and, for a top-level object, each member's raw bytes.
    public struct Document: Sendable {
        public var value: JSONValue
        /// The exact text of each member value of a top-level object (empty otherwise).
        public var topLevelMembers: [String: [UInt8]]
    }

    /// Parses one JSON text.
    public static func parse(_ bytes: some Collection<UInt8>, maximumDepth: Int = defaultMaximumDepth) throws(JSONParseError) -> JSONValue {
        try parseDocument(bytes, maximumDepth: maximumDepth).value
    }

    /// Parses one JSON text, keeping the raw text of a top-level object's members.
    public static func parseDocument(_ bytes: some Collection<UInt8>, maximumDepth: Int = defaultMaximumDepth) throws(JSONParseError) -> Document {
        let buffer = Array(bytes)
        var parser = Parser(bytes: buffer, maximumDepth: maximumDepth)
        return try parser.parseDocument()
    }
}

/// Why a text is not JSON recorderd accepts: the message and the byte offset.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int

    public init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(message) at byte \(offset)" }
}

private struct Parser {
    let bytes: [UInt8]
    let maximumDepth: Int
    var index = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// A container being filled.
    enum Frame {
        case array([JSONValue])
        case object([String: JSONValue], key: String?)
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONParser.Document {
        var members: [String: [UInt8]] = [:]
        var stack: [Frame] = []
        var memberStart = 0
        skipWhitespace()
        var result: JSONValue?
        // Each turn reads one value (or closes containers) and attaches it to the innermost frame.
        parsing: while true {
            skipWhitespace()
            guard index < bytes.count else { throw error(stack.isEmpty ? "empty input" : "unexpected end of input") }
            var value: JSONValue
            switch bytes[index] {
            case UInt8(ascii: "{"):
                guard stack.count < maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
                index += 1
                skipWhitespace()
                if peek(UInt8(ascii: "}")) {
                    index += 1
                    value = .object([:])
                } else {
                    let key = try parseKey()
                    if stack.isEmpty { memberStart = index }
                    stack.append(.object([:], key: key))
                    continue parsing
                }
            case UInt8(ascii: "["):
                guard stack.count < maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
                index += 1
                skipWhitespace()
                if peek(UInt8(ascii: "]")) {
                    index += 1
                    value = .array([])
                } else {
                    stack.append(.array([]))
                    continue parsing
                }
            case UInt8(ascii: "\""):
                value = .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try parseNumber())
            default:
                throw error("unexpected character \(describe(bytes[index]))")
            }
            // Attach the value; close every container that ends here.
            while true {
                guard let top = stack.popLast() else {
                    result = value
                    break parsing
                }
                skipWhitespace()
                switch top {
                case .array(var elements):
                    elements.append(value)
                    if peek(UInt8(ascii: ",")) {
                        index += 1
                        stack.append(.array(elements))
                        continue parsing
                    }
                    guard peek(UInt8(ascii: "]")) else { throw error(index < bytes.count ? "expected , or ] in an array" : "unexpected end of input") }
                    index += 1
                    value = .array(elements)
                case .object(var object, let key):
                    let key = key!
                    if stack.isEmpty { members[key] = Array(bytes[memberStart..<lastNonWhitespace()]) }
                    guard object.updateValue(value, forKey: key) == nil else {
                        throw error("duplicate key \(key.debugDescription)")
                    }
                    if peek(UInt8(ascii: ",")) {
                        index += 1
                        skipWhitespace()
                        let next = try parseKey()
                        if stack.isEmpty { memberStart = index }
                        stack.append(.object(object, key: next))
                        continue parsing
                    }
                    guard peek(UInt8(ascii: "}")) else { throw error(index < bytes.count ? "expected , or } in an object" : "unexpected end of input") }
                    index += 1
                    value = .object(object)
                }
            }
        }
        skipWhitespace()
        guard index == bytes.count else { throw error("unexpected \(describe(bytes[index])) after the JSON value") }
        let top = result!
        if case .object = top {} else { members = [:] }
        return JSONParser.Document(value: top, topLevelMembers: members)
    }

    /// The end of the value just parsed (before whitespace skipped after it).
    func lastNonWhitespace() -> Int {
        var end = index
        while end > 0, Self.isWhitespace(bytes[end - 1]) { end -= 1 }
        return end
    }

    /// `"key"` then `:`; leaves the index at the member's value.
    mutating func parseKey() throws(JSONParseError) -> String {
        guard peek(UInt8(ascii: "\"")) else { throw error(index < bytes.count ? "expected a string key" : "unexpected end of input") }
        let key = try parseString()
        skipWhitespace()
        guard peek(UInt8(ascii: ":")) else { throw error(index < bytes.count ? "expected : after a key" : "unexpected end of input") }
        index += 1
        skipWhitespace()
        return key
    }

    static func isWhitespace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
    }

    mutating func skipWhitespace() {
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    }

    func peek(_ b: UInt8) -> Bool { index < bytes.count && bytes[index] == b }

    func error(_ message: String) -> JSONParseError { JSONParseError(message, offset: index) }

    func describe(_ b: UInt8) -> String {
        (0x21...0x7E).contains(b) ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x" + (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true)
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        let matches = literal.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { throw error("unexpected character \(describe(bytes[index]))") }
        index += count
    }

    /// A number: the JSON grammar exactly, then its Double value (finite, or an error).
    mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if peek(UInt8(ascii: "-")) { index += 1 }
        if peek(UInt8(ascii: "0")) {
            index += 1
        } else {
            guard digits() > 0 else { throw error("expected a digit") }
        }
        if peek(UInt8(ascii: ".")) {
            index += 1
            guard digits() > 0 else { throw error("expected a digit after the decimal point") }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard digits() > 0 else { throw error("expected a digit in the exponent") }
        }
        // The one rule for numbers (`JSONNumber`): too large for a Double, or nonzero and too small
        // (2e-324 would silently become 0), is out of range.
        let value = bytes.withUnsafeBufferPointer { JSONNumber.parse(UnsafeBufferPointer(rebasing: $0[start..<index])) }
        guard let value else {
            throw JSONParseError("number \(String(decoding: bytes[start..<index].prefix(40), as: UTF8.self)) is out of range", offset: start)
        }
        return value
    }

    /// A string after its opening quote is at `index`; returns it unescaped.
    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                let slice = bytes[start..<index]
                index += 1
                guard let s = String(validating: slice, as: UTF8.self) else {
                    throw JSONParseError("invalid UTF-8 in a string", offset: start)
                }
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            guard b >= 0x20 else { throw error("control character \(describe(b)) in a string") }
            index += 1
        }
        var out = Array(bytes[start..<index])
        while index < bytes.count {
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                guard let s = String(validating: out, as: UTF8.self) else {
                    throw JSONParseError("invalid UTF-8 in a string", offset: start)
                }
                return s
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unexpected end of input") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): out.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("lone surrogate \\u\(String(scalar, radix: 16)) in a string")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid surrogate pair in a string") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("lone surrogate \\u\(String(scalar, radix: 16)) in a string")
                    }
                    out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
                default:
                    throw JSONParseError("invalid escape \\\(describe(e))", offset: index - 2)
                }
            default:
                guard b >= 0x20 else { throw error("control character \(describe(b)) in a string") }
                out.append(b)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end of input") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("expected a hexadecimal digit in \\u")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }
}
