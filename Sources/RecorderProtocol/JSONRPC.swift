import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel

/// A JSON-RPC 2.0 request id: a string, a number, or null.
///
/// A number is kept as the exact text it arrived in and echoed byte for byte: ids beyond 2^53
/// (which a Double would change) and `Int64.max` come back as sent.
public enum JSONRPCID: Sendable, Hashable, Codable {
    /// A number, as its JSON text (e.g. `"9223372036854775807"`).
    case number(String)
    case string(String)
    case null

    /// A numeric id.
    public init(_ number: Int64) { self = .number(String(number)) }

    /// The numeric id as an integer, when it is one that fits.
    public var integerValue: Int64? {
        if case .number(let text) = self { return Int64(text) }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let n = try? c.decode(Int64.self) { self = .number(String(n)) }
        else if let d = try? c.decode(Double.self) { self = .number("\(d)") }
        else { self = .string(try c.decode(String.self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .number(let text):
            if let n = Int64(text) { try c.encode(n) } else { try c.encode(Double(text) ?? 0) }
        case .string(let s): try c.encode(s)
        case .null: try c.encodeNil()
        }
    }

    /// The id as JSON text, exactly as it was received.
    public var jsonBytes: [UInt8] {
        switch self {
        case .number(let text): return Array(text.utf8)
        case .null: return Array("null".utf8)
        case .string(let s):
            var encoder = JSONLinesEncoder(reservingCapacity: s.utf8.count + 2)
            encoder.appendString(s)
            return encoder.bytes
        }
    }
}

/// The error codes of the control protocol: JSON-RPC's standard codes and recorderd's own.
public enum RPCErrorCode: Int, Sendable, Codable, CaseIterable {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
    /// `taskRunUUID` names no active task run.
    case unknownTaskRun = -32001
    /// A step boundary out of order (finish before start, start twice).
    case stepOrder = -32002
    /// The named device is not configured.
    case unknownDevice = -32003
    /// The device is configured but cannot be opened now.
    case deviceUnavailable = -32004
    /// A task run with this UUID exists already.
    case duplicateTaskRun = -32005
    /// The async-action configurations are not usable (duplicate identifiers, …).
    case invalidConfiguration = -32006
    /// No subscription with that id on this connection.
    case unknownSubscription = -32007
    /// Writing the run's files failed (disk full, permissions).
    case storageError = -32008
    /// The request line was longer than 1 MiB; the connection is closed.
    case requestTooLarge = -32009
    /// The daemon is shutting down.
    case shuttingDown = -32010
    /// A limit of recorderd was reached (connections, task runs, recorders per run, subscriptions).
    case limitReached = -32011
    /// No run in the data directory matches (`runs.get`, `runs.delete`).
    case unknownRun = -32012
    /// The run is recording: it cannot be deleted.
    case runInUse = -32013
}

/// A JSON-RPC error object.
public struct RPCError: Error, Sendable, Equatable, Codable {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public init(_ code: RPCErrorCode, _ message: String, data: JSONValue? = nil) {
        self.init(code: code.rawValue, message: message, data: data)
    }

    /// The known code, or nil for a code this version does not know.
    public var knownCode: RPCErrorCode? { RPCErrorCode(rawValue: code) }
}

/// A JSON-RPC request as it arrives.
public struct JSONRPCRequest: Sendable {
    /// nil for a notification (no `id` member).
    public var id: JSONRPCID?
    public var method: String
    public var params: JSONValue?

    public init(id: JSONRPCID?, method: String, params: JSONValue?) {
        self.id = id
        self.method = method
        self.params = params
    }
}

/// A JSON-RPC response (result or error) or a notification, as it arrives at a client (read by
/// `parse(line:)`).
public struct JSONRPCMessage: Sendable {
    public var id: JSONRPCID?
    public var method: String?
    public var params: JSONValue?
    public var result: JSONValue?
    public var error: RPCError?

    /// An empty message (every member absent).
    public init() {}
}

/// A JSON-RPC response as a value (written by `JSONRPCEncoder.response(_:)`).
public struct JSONRPCResponse: Sendable {
    public var id: JSONRPCID
    public var result: JSONValue?
    public var error: RPCError?

    public init(id: JSONRPCID, result: JSONValue) {
        self.id = id
        self.result = result
    }

    public init(id: JSONRPCID, error: RPCError) {
        self.id = id
        self.error = error
    }
}

extension JSONRPCRequest {
    /// Parses one request line. Throws `RPCError` (parse error or invalid request) with the id
    /// when it could be read, so that the error response can carry it.
    public static func parse(line: some Collection<UInt8>) throws(RequestParseError) -> JSONRPCRequest {
        let document: JSONParser.Document
        guard String(validating: line, as: UTF8.self) != nil else {
            throw RequestParseError(id: .null, error: RPCError(.parseError, "parse error: the line is not UTF-8"))
        }
        do {
            document = try JSONParser.parseDocument(line)
        } catch {
            throw RequestParseError(id: .null, error: RPCError(.parseError, "parse error: the line is not valid JSON (\(error))"))
        }
        guard case .object(let members) = document.value else {
            let what = document.value.typeName
            throw RequestParseError(id: .null, error: RPCError(.invalidRequest, "invalid request: expected a JSON object, found \(what) (batches are not supported)"))
        }
        var id: JSONRPCID?
        if let rawID = members["id"] {
            switch rawID {
            case .null: id = .null
            case .string(let s): id = .string(s)
            case .number:
                // Echoed exactly as received: the member's own text.
                id = .number(String(decoding: document.topLevelMembers["id"] ?? [], as: UTF8.self))
            default:
                throw RequestParseError(id: .null, error: RPCError(.invalidRequest, "invalid request: id: expected a string, a number or null"))
            }
        }
        guard members["jsonrpc"] == .string("2.0") else {
            throw RequestParseError(id: id ?? .null, error: RPCError(.invalidRequest, "invalid request: jsonrpc: expected \"2.0\""))
        }
        guard case .string(let method)? = members["method"] else {
            throw RequestParseError(id: id ?? .null, error: RPCError(.invalidRequest, "invalid request: method: expected a string"))
        }
        let params = members["params"]
        switch params {
        case nil, .object?: break
        case .array(let a)? where a.isEmpty: break
        default:
            throw RequestParseError(id: id ?? .null, error: RPCError(.invalidParams, "invalid params: params: expected an object"))
        }
        return JSONRPCRequest(id: id, method: method, params: params)
    }
}

/// A request line that could not be parsed, with the id to answer to.
public struct RequestParseError: Error, Sendable {
    public var id: JSONRPCID
    public var error: RPCError
}
