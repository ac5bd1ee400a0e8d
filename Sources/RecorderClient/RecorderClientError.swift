import RecorderModel
import RecorderProtocol

/// An error from the daemon (JSON-RPC code and message) or from the connection.
public enum RecorderClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The daemon answered with a JSON-RPC error.
    case rpc(RPCError)
    /// The socket could not be reached.
    case connectionFailed(String)
    /// The connection closed before the answer came.
    case connectionClosed
    /// The answer did not decode as expected.
    case invalidResponse(String)

    /// The JSON-RPC code, for daemon errors.
    public var code: Int? {
        if case .rpc(let e) = self { return e.code }
        return nil
    }

    public var description: String {
        switch self {
        case .rpc(let e): return "\(e.message) (code \(e.code))"
        case .connectionFailed(let m): return "cannot connect: \(m)"
        case .connectionClosed: return "the connection to recorderd closed"
        case .invalidResponse(let m): return "invalid response: \(m)"
        }
    }
}
