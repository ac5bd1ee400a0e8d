import FoundationEssentials

/// `clock` in the daemon's configuration: where recorderd asks how well the wall clock is
/// synchronised (recorded in every task result at start and end, shown in `daemon.status` and the
/// fleet status).
///
/// ```json
/// "clock": {"source": "auto", "chrony": "127.0.0.1:323", "chronyc": "/usr/bin/chronyc"}
/// ```
/// `auto` (the default) asks chronyd (`chronyc -c tracking` over its command port), else
/// systemd-timesyncd over D-Bus, else records `unknown`; `chrony` and `timesyncd` ask only that
/// one; `none` records nothing.
public struct ClockConfiguration: Sendable, Equatable {
    public enum Source: String, Sendable, Codable, CaseIterable { case auto, chrony, timesyncd, none }

    public var source: Source = .auto
    /// chronyd's command address (an IP address or localhost) and port (chronyd's default 323),
    /// written `host:port` in the file (`chrony`).
    public var chronyHost = "127.0.0.1"
    public var chronyPort = 323
    /// `host:port`, as the file writes it.
    public var chrony: String { chronyHost.contains(":") ? "[\(chronyHost)]:\(chronyPort)" : "\(chronyHost):\(chronyPort)" }
    /// The `chronyc` program.
    public var chronyc: String = "/usr/bin/chronyc"

    public init() {}
}

extension ClockConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable { case source, chrony, chronyc }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let text = try c.decodeIfPresent(String.self, forKey: .source) {
            guard let source = Source(rawValue: text) else {
                throw DecodingError.dataCorruptedError(forKey: .source, in: c, debugDescription:
                    "expected one of \(Source.allCases.map(\.rawValue).joined(separator: ", ")), not \(text.debugDescription)")
            }
            self.source = source
        }
        if let address = try c.decodeIfPresent(String.self, forKey: .chrony) {
            switch HTTPConfiguration.parseListen(address) {
            case .success(let parsed): (chronyHost, chronyPort) = (parsed.host, parsed.port)
            case .failure(let error): throw DecodingError.dataCorruptedError(forKey: .chrony, in: c, debugDescription: error.message)
            }
        }
        chronyc = try c.decodeIfPresent(String.self, forKey: .chronyc, bytes: 1...1024, expected: "expected a program path of 1 to 1024 bytes") ?? chronyc
        guard chronyc.hasPrefix("/") else {
            throw DecodingError.dataCorruptedError(forKey: .chronyc, in: c, debugDescription: "expected an absolute path (such as /usr/bin/chronyc)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(source.rawValue, forKey: .source)
        try c.encode(chrony, forKey: .chrony)
        try c.encode(chronyc, forKey: .chronyc)
    }
}
