import RecorderModel

/// A JSON value with its members in the order written: FHIR resources read best with
/// `resourceType` first, and golden files need a fixed order. Written compactly with recorderd's
/// number and string writers.
enum FHIRJSON {
    /// One member of an object.
    struct Member {
        let key: String
        let value: FHIRJSON
    }

    case object([Member])
    case array([FHIRJSON])
    case string(String)
    case number(Double)
    case integer(Int)
    case bool(Bool)
    /// Text already escaped for a JSON string, written between quotes (a long SampledData string
    /// built in place: numbers, spaces and `E`s).
    case escaped([UInt8])

    /// Appends the value to `encoder`.
    func write(to encoder: inout JSONLinesEncoder) {
        switch self {
        case .object(let members):
            encoder.appendStatic("{")
            for (i, member) in members.enumerated() {
                if i > 0 { encoder.appendStatic(",") }
                encoder.appendString(member.key)
                encoder.appendStatic(":")
                member.value.write(to: &encoder)
            }
            encoder.appendStatic("}")
        case .array(let items):
            encoder.appendStatic("[")
            for (i, item) in items.enumerated() {
                if i > 0 { encoder.appendStatic(",") }
                item.write(to: &encoder)
            }
            encoder.appendStatic("]")
        case .string(let s): encoder.appendString(s)
        case .number(let n): encoder.appendNumber(n)
        case .integer(let n): encoder.appendInteger(n)
        case .bool(let b): encoder.appendStatic(b ? "true" : "false")
        case .escaped(let bytes):
            encoder.appendStatic("\"")
            encoder.appendRaw(bytes)
            encoder.appendStatic("\"")
        }
    }

    /// An object without the members whose value is nil.
    static func members(_ pairs: [(String, FHIRJSON?)]) -> FHIRJSON {
        .object(pairs.compactMap { key, value in value.map { Member(key: key, value: $0) } })
    }

    /// An object of these members, in order.
    static func object(_ pairs: [(String, FHIRJSON)]) -> FHIRJSON {
        .object(pairs.map { Member(key: $0.0, value: $0.1) })
    }
}
