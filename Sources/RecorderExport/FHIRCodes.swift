import RecorderModel

/// The code systems, codes and UCUM units of the FHIR export.
enum FHIRCodes {
    /// recorderd's own CodeSystem: sensor types (`accelerometer`), their axes
    /// (`accelerometer-x`), gait measures (`cadence`) and `distance-walked`.
    static let recorderd = "http://recorderd.example/fhir/CodeSystem/recorderd"
    static let loinc = "http://loinc.org"
    static let ucum = "http://unitsofmeasure.org"
    static let observationCategory = "http://terminology.hl7.org/CodeSystem/observation-category"
    /// recorderd's device names (Device.identifier).
    static let deviceIdentifier = "http://recorderd.example/fhir/NamingSystem/device"

    /// The UCUM code of a unit written in recorderd's files.
    static func ucum(_ unit: String) -> String {
        switch unit {
        case "g": return "[g]"
        case "quaternion": return "1"
        case "m": return "m"
        case "m/s": return "m/s"
        case "deg": return "deg"
        default: return unit
        }
    }

    /// The components of a motion sensor type, in order.
    static func axes(_ type: SensorType) -> [String] {
        type == .attitude ? ["x", "y", "z", "w"] : ["x", "y", "z"]
    }

    /// A CodeableConcept of one coding.
    static func concept(_ system: String, _ code: String, _ display: String) -> FHIRJSON {
        .object([("coding", .array([.object([("system", .string(system)), ("code", .string(code)), ("display", .string(display))])])),
                 ("text", .string(display))])
    }

    /// A UCUM Quantity.
    static func quantity(_ value: Double, unit: String, code: String) -> FHIRJSON {
        .object([("value", .number(value)), ("unit", .string(unit)), ("system", .string(ucum)), ("code", .string(code))])
    }
}
