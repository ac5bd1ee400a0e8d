import CSystemd
import Glibc

/// Reads and writes `DBusValue`s from and to sd-bus messages (`sd_bus_message_read_basic`,
/// `…_enter_container`, `…_append_basic`…: sd-bus's variadic readers and writers cannot be called
/// from Swift). Every value of a message goes through here.
enum DBusMessageCodec {
    static func code(_ ascii: Unicode.Scalar) -> CChar { CChar(bitPattern: UInt8(ascii: ascii)) }

    // MARK: Writing

    /// Appends `value` to `message`; a negative errno on failure.
    static func append(_ value: DBusValue, to message: OpaquePointer) -> Int32 {
        func basic<T>(_ type: Unicode.Scalar, _ v: T) -> Int32 {
            withUnsafeBytes(of: v) { sd_bus_message_append_basic(message, code(type), $0.baseAddress) }
        }
        func text(_ type: Unicode.Scalar, _ s: String) -> Int32 {
            s.withCString { sd_bus_message_append_basic(message, code(type), $0) }
        }
        func container(_ type: Unicode.Scalar, _ contents: String, _ body: () -> Int32) -> Int32 {
            var r = contents.withCString { sd_bus_message_open_container(message, code(type), $0) }
            guard r >= 0 else { return r }
            r = body()
            guard r >= 0 else { return r }
            return sd_bus_message_close_container(message)
        }
        func each(_ values: [DBusValue]) -> Int32 {
            for v in values {
                let r = append(v, to: message)
                if r < 0 { return r }
            }
            return 0
        }
        switch value {
        case .byte(let v): return basic("y", v)
        case .boolean(let v): return basic("b", Int32(v ? 1 : 0))
        case .int16(let v): return basic("n", v)
        case .uint16(let v): return basic("q", v)
        case .int32(let v): return basic("i", v)
        case .uint32(let v): return basic("u", v)
        case .int64(let v): return basic("x", v)
        case .uint64(let v): return basic("t", v)
        case .double(let v): return basic("d", v)
        case .unixFD(let v): return basic("h", v)
        case .string(let s): return text("s", s)
        case .objectPath(let s): return text("o", s)
        case .signature(let s): return text("g", s)
        case .bytes(let bytes):
            return bytes.withUnsafeBytes { sd_bus_message_append_array(message, code("y"), $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, $0.count) }
        case .array(let element, let values):
            return container("a", element) { each(values) }
        case .dictionary(let key, let valueType, let entries):
            return container("a", "{" + key + valueType + "}") {
                for entry in entries {
                    let r = container("e", key + valueType) { each([entry.key, entry.value]) }
                    if r < 0 { return r }
                }
                return 0
            }
        case .structure(let fields):
            return container("r", fields.map(\.signature).joined()) { each(fields) }
        case .variant(let inner):
            return container("v", inner.signature) { append(inner, to: message) }
        }
    }

    // MARK: Reading

    /// Every value left in `message` at its current level.
    static func readAll(_ message: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while let value = try read(message) { values.append(value) }
        return values
    }

    /// The next value of `message`, nil at the end of the current container.
    static func read(_ message: OpaquePointer) throws(DBusError) -> DBusValue? {
        var type: CChar = 0
        var contentsPointer: UnsafePointer<CChar>?
        let r = sd_bus_message_peek_type(message, &type, &contentsPointer)
        guard r >= 0 else { throw DBusError.system("reading a D-Bus message", r) }
        if r == 0 { return nil }
        let contents = contentsPointer.map { String(cString: $0) } ?? ""
        func basic<T>(_ initial: T) throws(DBusError) -> T {
            var v = initial
            let r = withUnsafeMutableBytes(of: &v) { sd_bus_message_read_basic(message, type, $0.baseAddress) }
            guard r > 0 else { throw DBusError.system("reading a D-Bus value", r < 0 ? r : -EBADMSG) }
            return v
        }
        func text() throws(DBusError) -> String {
            var p: UnsafePointer<CChar>?
            let r = sd_bus_message_read_basic(message, type, &p)
            guard r > 0, let p else { throw DBusError.system("reading a D-Bus string", r < 0 ? r : -EBADMSG) }
            return String(cString: p)
        }
        func inside<T>(_ container: CChar, _ body: () throws(DBusError) -> T) throws(DBusError) -> T {
            let r = contents.withCString { sd_bus_message_enter_container(message, container, $0) }
            guard r > 0 else { throw DBusError.system("entering a D-Bus container", r < 0 ? r : -EBADMSG) }
            let value = try body()
            let e = sd_bus_message_exit_container(message)
            guard e >= 0 else { throw DBusError.system("leaving a D-Bus container", e) }
            return value
        }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return .byte(try basic(UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(try basic(Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try basic(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try basic(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try basic(Double(0)))
        case UInt8(ascii: "h"): return .unixFD(try basic(Int32(-1)))
        case UInt8(ascii: "s"): return .string(try text())
        case UInt8(ascii: "o"): return .objectPath(try text())
        case UInt8(ascii: "g"): return .signature(try text())
        case UInt8(ascii: "a"):
            if contents == "y" {
                var pointer: UnsafeRawPointer?
                var size = 0
                let r = sd_bus_message_read_array(message, code("y"), &pointer, &size)
                guard r >= 0 else { throw DBusError.system("reading a D-Bus byte array", r) }
                guard let pointer, size > 0 else { return .bytes([]) }
                return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: size)))
            }
            if contents.hasPrefix("{") {
                let inner = String(contents.dropFirst().dropLast())
                let keyType = String(inner.prefix(1))
                return try inside(code("a")) { () throws(DBusError) -> DBusValue in
                    var entries: [DBusDictionaryEntry] = []
                    while true {
                        var entryType: CChar = 0
                        let p = sd_bus_message_peek_type(message, &entryType, nil)
                        guard p >= 0 else { throw DBusError.system("reading a D-Bus dictionary", p) }
                        if p == 0 { break }
                        let r = inner.withCString { sd_bus_message_enter_container(message, code("e"), $0) }
                        guard r > 0 else { throw DBusError.system("entering a D-Bus dictionary entry", r < 0 ? r : -EBADMSG) }
                        guard let key = try read(message), let value = try read(message) else {
                            throw DBusError(name: nil, message: "a D-Bus dictionary entry without its key and value")
                        }
                        let e = sd_bus_message_exit_container(message)
                        guard e >= 0 else { throw DBusError.system("leaving a D-Bus dictionary entry", e) }
                        entries.append(DBusDictionaryEntry(key: key, value: value))
                    }
                    return .dictionary(key: keyType, value: String(inner.dropFirst()), entries)
                }
            }
            return try inside(code("a")) { () throws(DBusError) -> DBusValue in .array(element: contents, try readAll(message)) }
        case UInt8(ascii: "r"):
            return try inside(code("r")) { () throws(DBusError) -> DBusValue in .structure(try readAll(message)) }
        case UInt8(ascii: "v"):
            return try inside(code("v")) { () throws(DBusError) -> DBusValue in
                guard let inner = try read(message) else { throw DBusError(name: nil, message: "an empty D-Bus variant") }
                return .variant(inner)
            }
        default:
            throw DBusError(name: nil, message: "unsupported D-Bus type \(Character(Unicode.Scalar(UInt8(bitPattern: type)))) in a message")
        }
    }
}
