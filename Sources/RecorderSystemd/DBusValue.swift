/// One D-Bus value of any type (the D-Bus specification's type system), as read from or written
/// to a message by `DBusConnection`.
public indirect enum DBusValue: Sendable, Equatable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An array of bytes (`ay`), read and written in one piece.
    case bytes([UInt8])
    /// An array of elements of the signature `element` (one complete type).
    case array(element: String, [DBusValue])
    /// A dictionary (`a{kv}`): entries in message order.
    case dictionary(key: String, value: String, [DBusDictionaryEntry])
    case structure([DBusValue])
    case variant(DBusValue)
    /// A file descriptor (`h`), owned by the message it came in (dup it to keep it).
    case unixFD(Int32)

    /// The value's signature (one complete type).
    public var signature: String {
        switch self {
        case .byte: return "y"
        case .boolean: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .bytes: return "ay"
        case .array(let element, _): return "a" + element
        case .dictionary(let key, let value, _): return "a{" + key + value + "}"
        case .structure(let fields): return "(" + fields.map(\.signature).joined() + ")"
        case .variant: return "v"
        case .unixFD: return "h"
        }
    }

    /// A property map (`a{sv}`) from `properties`, in key order.
    public static func propertyMap(_ properties: [String: DBusValue]) -> DBusValue {
        .dictionary(key: "s", value: "v", properties.sorted { $0.key < $1.key }.map { DBusDictionaryEntry(key: .string($0.key), value: .variant($0.value)) })
    }

    /// An array of strings (`as`).
    public static func strings(_ values: [String]) -> DBusValue {
        .array(element: "s", values.map(DBusValue.string))
    }

    // MARK: Reading

    /// The value inside any number of variants.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// A string, object path or signature (through variants); nil for other types.
    public var text: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s), .signature(let s): return s
        default: return nil
        }
    }

    /// A boolean (through variants).
    public var bool: Bool? {
        if case .boolean(let b) = unwrapped { return b }
        return nil
    }

    /// Any integer type that fits an `Int` (through variants).
    public var integer: Int? {
        switch unwrapped {
        case .byte(let v): return Int(v)
        case .int16(let v): return Int(v)
        case .uint16(let v): return Int(v)
        case .int32(let v): return Int(v)
        case .uint32(let v): return Int(v)
        case .int64(let v): return Int(v)
        case .uint64(let v): return Int(exactly: v)
        default: return nil
        }
    }

    /// Bytes (`ay`, through variants).
    public var byteArray: [UInt8]? {
        switch unwrapped {
        case .bytes(let b): return b
        case .array("y", let elements):
            var bytes: [UInt8] = []
            for element in elements {
                guard case .byte(let b) = element else { return nil }
                bytes.append(b)
            }
            return bytes
        default: return nil
        }
    }

    /// The elements of an array (through variants); an `ay` as bytes.
    public var elements: [DBusValue]? {
        switch unwrapped {
        case .array(_, let elements): return elements
        case .bytes(let bytes): return bytes.map(DBusValue.byte)
        default: return nil
        }
    }

    /// The strings of an array of strings or object paths (through variants).
    public var texts: [String]? {
        elements.map { $0.compactMap(\.text) }
    }

    /// A dictionary with string or object-path keys (`a{sv}`, `a{oa{sa{sv}}}`…), the values as
    /// they are (variants kept: `unwrapped` reads them). Later duplicates win.
    public var map: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = unwrapped else { return nil }
        var map: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.text else { return nil }
            map[key] = entry.value
        }
        return map
    }
}

/// One entry of a D-Bus dictionary.
public struct DBusDictionaryEntry: Sendable, Equatable {
    public var key: DBusValue
    public var value: DBusValue

    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}
