import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderProtocol

/// JSON-RPC over MQTT: a request on `cmd` is the same request as on the control socket, carried
/// out through it, so that methods, params and errors are the socket's; its answer goes to
/// `reply` with the request's id. No I/O here.
enum RemoteControl {
    /// What to do with one `cmd` payload.
    enum Decision {
        /// Carry out `method` through the control socket; answer to `id` (nil: a notification,
        /// no answer).
        case forward(id: JSONRPCID?, method: String, params: JSONValue?)
        /// Answer at once (the payload is not a request that can be carried out).
        case reply(JSONRPCResponse)
    }

    /// The longest payload: the control socket's line limit.
    static let maximumBytes = 1 << 20

    /// Methods that need a connection of their own (their records arrive as notifications on
    /// it): the live topics carry live data over MQTT.
    static let connectionMethods: Set<String> = [ControlMethod.streamSubscribe.rawValue, ControlMethod.streamUnsubscribe.rawValue]

    static func decide(_ payload: [UInt8]) -> Decision {
        guard payload.count <= maximumBytes else {
            return .reply(JSONRPCResponse(id: .null, error: RPCError(.requestTooLarge, "request too large: \(payload.count) bytes (at most \(maximumBytes))")))
        }
        let request: JSONRPCRequest
        do {
            request = try JSONRPCRequest.parse(line: payload)
        } catch {
            return .reply(JSONRPCResponse(id: error.id, error: error.error))
        }
        if connectionMethods.contains(request.method) {
            return .reply(JSONRPCResponse(id: request.id ?? .null, error: RPCError(.methodNotFound,
                "\(request.method) is not available over MQTT: it needs a connection of its own (use the socket, or the page's live plot)")))
        }
        return .forward(id: request.id, method: request.method, params: request.params)
    }

    /// The answer to `id` carrying what the daemon answered.
    static func reply(to id: JSONRPCID, _ message: JSONRPCMessage) -> JSONRPCResponse {
        if let error = message.error { return JSONRPCResponse(id: id, error: error) }
        return JSONRPCResponse(id: id, result: message.result ?? .null)
    }

    /// One answer's bytes (an MQTT payload: no newline).
    static func encode(_ response: JSONRPCResponse) -> [UInt8] {
        JSONRPCEncoder.response(response, newline: false)
    }
}
