import RecorderJSON
import RecorderModel

/// The one writer of JSON-RPC 2.0 envelopes, on both ends of the control socket and over MQTT:
/// requests, responses, error responses and notifications, each as one compact object with
/// its members in a fixed order (`jsonrpc`, then `id`, `method`, `params`, `result` or `error`),
/// ending with a newline unless asked not to (an MQTT payload is a message, not a line).
///
/// Its readers are `JSONRPCRequest.parse` (the daemon, the fleet link) and
/// `JSONRPCMessage.parse` (clients); `StreamRecordsNotification` writes and reads the one
/// notification that carries records, batch by batch.
public enum JSONRPCEncoder {
    /// `{"jsonrpc":"2.0",` — every envelope's start.
    static let start: StaticString = "{\"jsonrpc\":\"2.0\","

    /// A request (`id` non-nil) or a notification from a client (`id` nil) of `method` with
    /// `params` already encoded as a JSON object (nil: no params member).
    public static func request(id: JSONRPCID?, method: String, encodedParams: [UInt8]?, newline: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(48 + method.utf8.count + (encodedParams?.count ?? 0))
        append(start, to: &bytes)
        if let id {
            append("\"id\":", to: &bytes)
            bytes += id.jsonBytes
            append(",", to: &bytes)
        }
        append("\"method\":", to: &bytes)
        JSONString.appendEscaped(method, to: &bytes)
        if let encodedParams {
            append(",\"params\":", to: &bytes)
            bytes += encodedParams
        }
        end(&bytes, newline: newline)
        return bytes
    }

    /// A request of `method` with `params` (encoded by `JSONTextEncoder`).
    public static func request(id: JSONRPCID?, method: String, params: some Encodable, newline: Bool = true) throws -> [UInt8] {
        request(id: id, method: method, encodedParams: try JSONTextEncoder().encode(params), newline: newline)
    }

    /// A success response to `id` carrying `result`, encoded as the task-result encoder writes it
    /// (sorted keys, ISO-8601 dates) by `JSONTextEncoder`. The id is written exactly as the
    /// request carried it.
    public static func response(id: JSONRPCID, result: some Encodable, newline: Bool = true) throws -> [UInt8] {
        var bytes = Array("{\"jsonrpc\":\"2.0\",\"id\":".utf8)
        bytes += id.jsonBytes
        append(",\"result\":", to: &bytes)
        try JSONTextEncoder().encode(result, into: &bytes)
        end(&bytes, newline: newline)
        return bytes
    }

    /// An error response to `id`.
    public static func failure(id: JSONRPCID, error: RPCError, newline: Bool = true) -> [UInt8] {
        var bytes = Array("{\"jsonrpc\":\"2.0\",\"id\":".utf8)
        bytes += id.jsonBytes
        append(",\"error\":", to: &bytes)
        if let data = try? JSONTextEncoder().encode(error) {
            bytes += data
        } else {
            append("{\"code\":-32603,\"message\":\"internal error\"}", to: &bytes)
        }
        end(&bytes, newline: newline)
        return bytes
    }

    /// A response as a value: its result, or its error.
    public static func response(_ response: JSONRPCResponse, newline: Bool = true) -> [UInt8] {
        if let error = response.error { return failure(id: response.id, error: error, newline: newline) }
        return (try? Self.response(id: response.id, result: response.result ?? .null, newline: newline))
            ?? failure(id: response.id, error: RPCError(.internalError, "internal error: the answer cannot be encoded"), newline: newline)
    }

    /// A notification from the daemon of `method` carrying `params`.
    public static func notification(method: String, params: some Encodable, newline: Bool = true) throws -> [UInt8] {
        request(id: nil, method: method, encodedParams: try JSONTextEncoder().encode(params), newline: newline)
    }

    /// The envelope's end, in place (no copy of what was written).
    @inline(__always)
    static func end(_ bytes: inout [UInt8], newline: Bool) {
        append(newline ? "}\n" : "}", to: &bytes)
    }

    @inline(__always)
    static func append(_ s: StaticString, to bytes: inout [UInt8]) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
