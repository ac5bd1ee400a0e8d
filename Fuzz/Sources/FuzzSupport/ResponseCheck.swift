import Foundation

/// What one line from the daemon is, checked with Foundation's own JSON parser (an independent
/// reader of what recorderd writes).
public enum ResponseCheck {
    public enum Kind: Equatable {
        /// The harness's own `daemon.status`, answered with a result.
        case sentinel
        /// An error the daemon sends before it closes a connection (line too long, input budget,
        /// a limit).
        case refusal
        /// Any other well-formed response or notification.
        case other
        case malformed(String)
    }

    public static func check(_ line: [UInt8]) -> Kind {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line))) as? [String: Any] else { return .malformed("not a JSON object") }
        guard object["jsonrpc"] as? String == "2.0" else { return .malformed("no jsonrpc 2.0") }
        if let method = object["method"] {
            guard method as? String == "stream.records", object["params"] is [String: Any], object["id"] == nil else {
                return .malformed("a notification other than stream.records")
            }
            return .other
        }
        guard let id = object["id"] else { return .malformed("a response without id") }
        let result = object["result"], error = object["error"]
        guard (result == nil) != (error == nil) else { return .malformed("not exactly one of result and error") }
        if let error {
            guard let e = error as? [String: Any], let code = e["code"] as? Int, let message = e["message"] as? String, !message.isEmpty else {
                return .malformed("an error without code and message")
            }
            guard (-32768 ... -32000).contains(code) else { return .malformed("error code \(code) outside JSON-RPC's range") }
            if code == -32603 { return .malformed("internal error: \(message)") }
            if id is NSNull, code == -32009 || code == -32011 { return .refusal }
            return .other
        }
        return id as? String == "fuzz-sentinel" ? .sentinel : .other
    }
}
