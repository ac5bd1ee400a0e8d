import Foundation
import RecorderModel

/// Encodes responses as single lines: `{"jsonrpc":"2.0","id":…,"result":…}\n`. The id is
/// written exactly as the request carried it.
enum ResponseEncoding {
    /// A success response carrying `result`, encoded with the task-result encoder (ISO-8601 dates).
    static func success<T: Encodable>(id: JSONRPCID, result: T) throws -> [UInt8] {
        let encoder = TaskResult.makeEncoder()
        var bytes = Array("{\"jsonrpc\":\"2.0\",\"id\":".utf8)
        bytes += id.jsonBytes
        bytes += Array(",\"result\":".utf8)
        bytes += try encoder.encode(result)
        bytes += Array("}\n".utf8)
        return bytes
    }

    /// An error response.
    static func failure(id: JSONRPCID, error: RPCError) -> [UInt8] {
        let encoder = TaskResult.makeEncoder()
        var bytes = Array("{\"jsonrpc\":\"2.0\",\"id\":".utf8)
        bytes += id.jsonBytes
        bytes += Array(",\"error\":".utf8)
        guard let data = try? encoder.encode(error) else {
            return bytes + Array("{\"code\":-32603,\"message\":\"internal error\"}}\n".utf8)
        }
        return bytes + Array(data) + Array("}\n".utf8)
    }
}
