import RecorderJSON
import RecorderProtocol

/// A JSON-RPC message's members as Foundation's `JSONDecoder` reads them: the independent reading
/// the client's own reader (`JSONRPCMessage.parse`) is tested against, and its benchmark's peer.
public struct FoundationRPCMessage: Decodable {
    public var id: JSONRPCID?
    public var method: String?
    public var params: JSONValue?
    public var result: JSONValue?
    public var error: RPCError?
}
