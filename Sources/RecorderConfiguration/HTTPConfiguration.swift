import FoundationEssentials
import Glibc
import RecorderModel

/// `http` in the daemon's configuration: the Pi's own web page (off when absent).
///
/// ```json
/// "http": {"listen": "127.0.0.1:8080", "token": "…", "taskDirectory": "tasks"}
/// ```
/// Bound to a loopback address it needs no token; bound to any other address a `token` of 16 to
/// 256 printable ASCII characters is required (entered once in the browser, kept in a cookie).
public struct HTTPConfiguration: Sendable, Equatable {
    /// `host:port` as written: an IPv4 address, `localhost`, or `[IPv6]`, and a port 1–65535.
    public var listen: String
    /// The host part (without brackets) and the port.
    public var host: String
    public var port: Int
    /// The access token (required unless the address is loopback).
    public var token: String?
    /// The folder of task files the Tasks page lists (relative: to the configuration's folder).
    public var taskDirectory: String = "tasks"

    /// The token's allowed length.
    public static let tokenLength = 16...256

    /// Parses `listen`; nil with the reason when it is not `host:port`.
    public static func parseListen(_ text: String) -> Result<(host: String, port: Int), ConfigurationError> {
        let fail = { (why: String) in Result<(host: String, port: Int), ConfigurationError>.failure(ConfigurationError("expected host:port (e.g. 127.0.0.1:8080 or [::1]:8080): \(why)")) }
        guard text.utf8.count <= 300, !ControlCharacters.containsSpaceOrControl(text) else { return fail("spaces or control characters") }
        guard let colon = text.lastIndex(of: ":") else { return fail("no port") }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCII), let port = Int(portText), (1...65535).contains(port) else {
            return fail("port \(String(portText).debugDescription) is not 1 to 65535")
        }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return fail("unclosed [") }
            host = String(host.dropFirst().dropLast())
            guard isIPv6(host) else { return fail("\(host.debugDescription) is not an IPv6 address") }
        } else {
            guard !host.isEmpty else { return fail("no host") }
            guard host == "localhost" || isIPv4(host) else { return fail("\(host.debugDescription) is not an IP address or localhost") }
        }
        return .success((host, port))
    }

    /// True when the address is only reachable from this machine (127.0.0.0/8, ::1, localhost).
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || (Self.isIPv4(host) && host.hasPrefix("127."))
    }

    static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }
}

extension HTTPConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case listen, token, taskDirectory }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        listen = try c.decode(String.self, forKey: .listen)
        switch Self.parseListen(listen) {
        case .success(let address): (host, port) = address
        case .failure(let error): throw DecodingError.dataCorruptedError(forKey: .listen, in: c, debugDescription: error.message)
        }
        token = try c.decodeIfPresent(String.self, forKey: .token)
        if let token {
            guard Self.tokenLength.contains(token.utf8.count), token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) && $0 != ";" && $0 != "," && $0 != "\"" && $0 != "\\" }) else {
                throw DecodingError.dataCorruptedError(forKey: .token, in: c, debugDescription:
                    "expected \(Self.tokenLength.lowerBound) to \(Self.tokenLength.upperBound) printable ASCII characters without spaces, quotes, backslashes, commas or semicolons")
            }
        } else if !isLoopback {
            throw DecodingError.dataCorruptedError(forKey: .token, in: c, debugDescription:
                "a token is required when listening on \(host) (not a loopback address): set http.token, or listen on 127.0.0.1")
        }
        taskDirectory = try c.decodeIfPresent(String.self, forKey: .taskDirectory, bytes: 1...1024,
                                              expected: "expected a directory path of 1 to 1024 bytes") ?? taskDirectory
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(listen, forKey: .listen)
        // The token is a secret: the effective configuration (--check-config) does not print it.
        try c.encodeIfPresent(token.map { _ in "(set)" }, forKey: .token)
        try c.encode(taskDirectory, forKey: .taskDirectory)
    }
}
