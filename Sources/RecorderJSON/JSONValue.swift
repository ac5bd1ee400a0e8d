import FoundationEssentials
import Glibc

/// A JSON document as a value: what the control protocol carries in `params` and `id`,
/// and what device configurations keep for their backend to decode.
public enum JSONValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string payload, or nil.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The array payload, or nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The numeric payload, or nil.
    public var numberValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// A short name of the JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Each failed attempt is a thrown error: the likeliest types go first (numbers, then
        // strings, in recorderd's JSON). A decoder reads a number as a Double only from a JSON
        // number, never from `true` or a string.
        if container.decodeNil() {
            self = .null
        } else if let n = try? container.decode(Double.self) {
            self = .number(n)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let o = try? container.decode([String: JSONValue].self) {
            self = .object(o)
        } else if let a = try? container.decode([JSONValue].self) {
            self = .array(a)
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n):
            if n.rounded() == n, abs(n) < 9.007_199_254_740_992e15 {
                try container.encode(Int64(n))
            } else {
                try container.encode(n)
            }
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

extension JSONValue {
    /// Decodes a typed value from this JSON value (control plane only, not per sample), with
    /// `JSONValueDecoder`: integers range-checked, errors with their full JSON path.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONValueDecoder().decode(T.self, from: self)
    }

    /// Encodes any Encodable value as a JSON value (through its text: `JSONTextEncoder`).
    public init<T: Encodable>(encoding value: T) throws {
        self = try JSONParser.parse(try JSONTextEncoder().encode(value))
    }
}
