import FoundationEssentials
import Glibc
import RecorderJSON

extension JSONRPCMessage {
    /// Parses one line from the daemon with `JSONParser`: what a client reads for every response
    /// and every streamed batch.
    ///
    /// The members are taken from the parsed object as they are, with no trial decoding of each
    /// value as one JSON type after another. A numeric `id` keeps its exact text, as requests do,
    /// and a null `id` is `.null` (an answer to a request whose id could not be read), not a
    /// notification's absent one; a null member is an absent one.
    public static func parse(line: some Collection<UInt8>) throws -> JSONRPCMessage {
        let document = try JSONParser.parseDocument(line)
        guard case .object(let members) = document.value else {
            throw DecodingError.typeMismatch(JSONRPCMessage.self, .init(codingPath: [], debugDescription: "expected a JSON object, found \(document.value.typeName)"))
        }
        var message = JSONRPCMessage()
        switch members["id"] {
        case nil: break
        case .null?: message.id = .null
        case .string(let s)?: message.id = .string(s)
        case .number?: message.id = .number(String(decoding: document.topLevelMembers["id"] ?? [], as: UTF8.self))
        case let other?:
            throw DecodingError.typeMismatch(JSONRPCID.self, .init(codingPath: [], debugDescription: "id: expected a string, a number or null, found \(other.typeName)"))
        }
        switch members["method"] {
        case nil, .null?: break
        case .string(let s)?: message.method = s
        case let other?:
            throw DecodingError.typeMismatch(String.self, .init(codingPath: [], debugDescription: "method: expected a string, found \(other.typeName)"))
        }
        // A null member is an absent one, as `decodeIfPresent` has it.
        message.params = members["params"].flatMap { $0 == .null ? nil : $0 }
        message.result = members["result"].flatMap { $0 == .null ? nil : $0 }
        if let error = members["error"], error != .null {
            message.error = try JSONValueDecoder().decode(RPCError.self, from: error)
        }
        return message
    }
}
