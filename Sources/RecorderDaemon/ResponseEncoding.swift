import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderProtocol

/// Encodes responses as single lines: `{"jsonrpc":"2.0","id":…,"result":…}\n`. The id is
/// written exactly as the request carried it.
enum ResponseEncoding {
    /// A success response carrying `result`, encoded as the task-result encoder writes it
    /// (sorted keys, ISO-8601 dates) by `JSONTextEncoder`.
    static func success<T: Encodable>(id: JSONRPCID, result: T) throws -> [UInt8] {
        var bytes = Array("{\"jsonrpc\":\"2.0\",\"id\":".utf8)
        bytes += id.jsonBytes
        bytes += ",\"result\":".utf8
        try JSONTextEncoder().encode(result, into: &bytes)
        bytes += "}\n".utf8
        return bytes
    }

    /// A notification of `method` carrying `params`.
    static func notification<T: Encodable>(method: String, params: T) throws -> [UInt8] {
        var bytes = Array("{\"jsonrpc\":\"2.0\",\"method\":".utf8)
        try JSONTextEncoder().encode(method, into: &bytes)
        bytes += ",\"params\":".utf8
        try JSONTextEncoder().encode(params, into: &bytes)
        bytes += "}\n".utf8
        return bytes
    }

    /// An error response.
    static func failure(id: JSONRPCID, error: RPCError) -> [UInt8] {
        var bytes = Array("{\"jsonrpc\":\"2.0\",\"id\":".utf8)
        bytes += id.jsonBytes
        bytes += ",\"error\":".utf8
        guard let data = try? JSONTextEncoder().encode(error) else {
            return bytes + Array("{\"code\":-32603,\"message\":\"internal error\"}}\n".utf8)
        }
        return bytes + data + Array("}\n".utf8)
    }
}
