/// Turns Foundation's decoding errors into messages that name the JSON path and what was expected,
/// e.g. `asyncActions[0].frequency: expected a number, found a string`.
public enum DecodingErrorDescription {
    /// The JSON path of `codingPath`, like `asyncActions[0].frequency`.
    public static func path(_ codingPath: [any CodingKey], prefix: String = "") -> String {
        var result = prefix
        for key in codingPath {
            if let index = key.intValue {
                result += "[\(index)]"
            } else {
                result += result.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return result.isEmpty ? "(top level)" : result
    }

    /// A one-line description of `error`, paths prefixed with `prefix`.
    public static func describe(_ error: any Error, prefix: String = "") -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath, prefix: prefix)): expected \(expectation(for: type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath, prefix: prefix)): expected \(expectation(for: type)), found null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key], prefix: prefix)): required key is missing"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                let what = context.debugDescription.hasPrefix("malformed JSON") ? context.debugDescription : "malformed JSON"
                return "\(prefix.isEmpty ? "" : prefix + ": ")\(what)"
            }
            return "\(path(context.codingPath, prefix: prefix)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    static func expectation(for type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "a boolean"
        case is Int.Type, is Int64.Type, is UInt16.Type, is UInt32.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") || name.hasPrefix("[") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "a value of type \(name)"
        }
    }
}
