import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel

/// `mqtt` in the daemon's configuration: the Pi as one device of a fleet, over an MQTT broker
/// (off when absent).
///
/// ```json
/// "mqtt": {"broker": "mqtts://broker.example.org:8883", "site": "clinic-a", "device": "pi-07", "protocol": "auto",
///          "tls": {"ca": "/etc/recorderd/ca.pem", "certificate": "pi-07.pem", "key": "pi-07.key"},
///          "username": "pi-07", "passwordFile": "/etc/recorderd/mqtt-password",
///          "remoteControl": false}
/// ```
/// Topics are `{topicPrefix}/{site}/{device}/…` (`status`, `events`, `cmd`, `reply`, `runs/…`,
/// `live/{deviceName}/{sensorType}`). Relative
/// file paths are relative to the configuration's folder.
public struct MQTTConfiguration: Sendable, Equatable {
    /// `mqtt://host[:port]` (1883) or `mqtts://host[:port]` (8883, TLS): the first node's URL.
    public var broker: String
    /// Every node of `broker` (a list: nodes of one cluster, or a primary and a standby), in the
    /// order the link tries them; one scheme for all.
    public var nodes: [MQTTBrokerNode]
    public var host: String { nodes[0].host }
    public var port: Int { nodes[0].port }
    public var usesTLS: Bool
    /// The site (clinic, home) this Pi belongs to: a topic level.
    public var site: String
    /// The Pi's id within the site: a topic level (nil: the host name, made topic-safe).
    public var device: String?
    /// The topics' first levels.
    public var topicPrefix: String = "recorderd/v1"
    /// The protocol spoken to the broker (`"protocol"`: `"auto"`, `"5"`, `"3.1.1"`).
    public var protocolChoice: MQTTProtocolChoice = .auto
    /// TLS files (PEM): the CA to trust (absent: the system's CAs), and a client certificate
    /// with its key (both or neither).
    public var tls: MQTTTLSFiles?
    /// The broker's user name, and a file whose first line is the password.
    public var username: String?
    public var passwordFile: String?
    /// Seconds between MQTT keepalives; the broker publishes the Last Will (`offline`) after
    /// 1.5 times this without a word from the Pi.
    public var keepalive: Int = 30
    /// Seconds between republished statuses when nothing changed (a change publishes at once).
    public var statusInterval: Double = 60
    /// Whether JSON-RPC requests on `cmd` are carried out (authorisation is the broker's ACL).
    public var remoteControl: Bool = false
    /// Whether ended runs are uploaded to the collectors.
    public var upload: Bool = true
    /// The upload's bandwidth cap in bytes per second (nil: none).
    public var uploadBandwidth: Double?
    /// Whether runs a collector acknowledged are deleted from the Pi: at once, or, with
    /// `keepFreeBytes`, oldest first only while the data directory has less free space than that.
    public var deleteAfterUpload: Bool = false
    public var keepFreeBytes: Int64?
    /// Devices whose live records are published (QoS 0, decimated); empty: none.
    public var live: [MQTTLiveStream] = []
    public static let uploadBandwidthRange = NumberRange(atLeast: 1000, atMost: 10_000_000_000, "bytes per second")

    public static let keepaliveRange = 5...3600
    /// The most nodes `broker` may list.
    public static let maximumNodes = 8
    public static let statusIntervalRange = NumberRange(atLeast: 1, atMost: 86_400, "seconds")

    /// Parses a broker URL; the reason when it is not `mqtt[s]://host[:port]`.
    public static func parseBroker(_ text: String) -> Result<(host: String, port: Int, tls: Bool), ConfigurationError> {
        let fail = { (why: String) in
            Result<(host: String, port: Int, tls: Bool), ConfigurationError>.failure(
                ConfigurationError("expected mqtt://host[:port] or mqtts://host[:port]: \(why)"))
        }
        guard text.utf8.count <= 300, !ControlCharacters.containsSpaceOrControl(text) else { return fail("spaces or control characters") }
        let tls: Bool
        var rest: Substring
        if text.hasPrefix("mqtt://") {
            (tls, rest) = (false, text.dropFirst(7))
        } else if text.hasPrefix("mqtts://") {
            (tls, rest) = (true, text.dropFirst(8))
        } else {
            return fail("the scheme is not mqtt or mqtts")
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/"), !rest.contains("@"), !rest.contains("?") else { return fail("a path, user or query is not allowed") }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return fail("unclosed [") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return fail("expected :port after ]") }
                portText = after.dropFirst()
            }
            guard HTTPConfiguration.isIPv6(String(host)) else { return fail("\(String(host).debugDescription) is not an IPv6 address") }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty, host.utf8.count <= 253 else { return fail("no host") }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":") }) else {
            return fail("\(String(host).debugDescription) is not a host name or address")
        }
        var port = tls ? 8883 : 1883
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCII), let p = Int(portText), (1...65535).contains(p) else {
                return fail("port \(String(portText).debugDescription) is not 1 to 65535")
            }
            port = p
        }
        return .success((String(host), port, tls))
    }

    /// True when `level` can be one topic level: the identifier rule (`[A-Za-z0-9._-]{1,64}`),
    /// so never a wildcard, a separator or a `$`-topic.
    public static func isTopicLevel(_ level: String) -> Bool {
        RecorderIdentifier.isValid(level)
    }

    /// The device id to use: `device`, or the host name made a topic level (other characters
    /// become `-`, at most 64).
    public func deviceID(hostName: String) -> String {
        if let device { return device }
        let cleaned = String(hostName.unicodeScalars.prefix(64).map { s -> Character in
            s.isASCII && (("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s) || s == "." || s == "_" || s == "-") ? Character(s) : "-"
        })
        return cleaned.isEmpty ? "recorderd" : cleaned
    }
}

/// One node of `mqtt.broker`.
public struct MQTTBrokerNode: Sendable, Equatable {
    /// As configured: `mqtt://host[:port]` or `mqtts://host[:port]`.
    public var url: String
    public var host: String
    public var port: Int

    public init(url: String, host: String, port: Int) {
        self.url = url
        self.host = host
        self.port = port
    }
}

/// `mqtt.tls`: PEM files.
public struct MQTTTLSFiles: Sendable, Equatable, Codable {
    public var ca: String?
    public var certificate: String?
    public var key: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case ca, certificate, key }

    public init(ca: String? = nil, certificate: String? = nil, key: String? = nil) {
        self.ca = ca
        self.certificate = certificate
        self.key = key
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func path(_ key: CodingKeys) throws -> String? {
            try c.decodeIfPresent(String.self, forKey: key, bytes: 1...1024, expected: "expected a file path of 1 to 1024 bytes")
        }
        ca = try path(.ca)
        certificate = try path(.certificate)
        key = try path(.key)
        guard (certificate == nil) == (key == nil) else {
            throw DecodingError.dataCorruptedError(forKey: certificate == nil ? .certificate : .key, in: c, debugDescription:
                "a client certificate needs its key, and a key its certificate: set both or neither")
        }
    }
}

extension MQTTConfiguration: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case broker, site, device, topicPrefix, `protocol`, tls, username, passwordFile, keepalive, statusInterval, remoteControl, upload, uploadBandwidth, deleteAfterUpload, keepFreeBytes, live
    }

    /// The keys of `mqtt`, with those of `mqtt.tls`.
    public static var configurationKeys: ConfigurationKeys {
        var known = Dictionary(uniqueKeysWithValues: CodingKeys.allCases.map { ($0.stringValue, ConfigurationKeys.any) })
        known[CodingKeys.tls.stringValue] = .keys(MQTTTLSFiles.CodingKeys.allCases.map(\.stringValue))
        known[CodingKeys.live.stringValue] = .array(.keys(MQTTLiveStream.CodingKeys.allCases.map(\.stringValue)))
        return .object(known)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let urls: [String]
        // Absent: the decoder's own "missing" error.
        if !c.contains(.broker) { _ = try c.decode(String.self, forKey: .broker) }
        if let one = try? c.decode(String.self, forKey: .broker) {
            urls = [one]
        } else if let list = try? c.decode([String].self, forKey: .broker) {
            urls = list
        } else {
            throw DecodingError.dataCorruptedError(forKey: .broker, in: c, debugDescription:
                "expected a broker URL (mqtt://host[:port] or mqtts://host[:port]) or a list of 1 to \(Self.maximumNodes) of them")
        }
        guard (1...Self.maximumNodes).contains(urls.count) else {
            throw DecodingError.dataCorruptedError(forKey: .broker, in: c, debugDescription: "expected 1 to \(Self.maximumNodes) broker URLs, not \(urls.count)")
        }
        var parsed: [MQTTBrokerNode] = []
        var schemes: Set<Bool> = []
        for (i, url) in urls.enumerated() {
            switch Self.parseBroker(url) {
            case .success(let b):
                parsed.append(MQTTBrokerNode(url: url, host: b.host, port: b.port))
                schemes.insert(b.tls)
            case .failure(let error):
                throw DecodingError.dataCorruptedError(forKey: .broker, in: c, debugDescription: urls.count == 1 ? error.message : "node \(i + 1): \(error.message)")
            }
        }
        guard schemes.count == 1 else {
            throw DecodingError.dataCorruptedError(forKey: .broker, in: c, debugDescription: "the nodes mix mqtt:// and mqtts://: one scheme for all")
        }
        if let repeated = Dictionary(grouping: parsed, by: { "\($0.host):\($0.port)" }).first(where: { $0.value.count > 1 })?.key {
            throw DecodingError.dataCorruptedError(forKey: .broker, in: c, debugDescription: "\(repeated) is listed twice")
        }
        nodes = parsed
        broker = urls[0]
        usesTLS = schemes.first!
        let level = "expected a topic level: 1 to 64 of A-Z a-z 0-9 . _ -"
        site = try c.decode(String.self, forKey: .site)
        guard Self.isTopicLevel(site) else { throw DecodingError.dataCorruptedError(forKey: .site, in: c, debugDescription: level) }
        device = try c.decodeIfPresent(String.self, forKey: .device)
        if let device, !Self.isTopicLevel(device) { throw DecodingError.dataCorruptedError(forKey: .device, in: c, debugDescription: level) }
        topicPrefix = try c.decodeIfPresent(String.self, forKey: .topicPrefix) ?? topicPrefix
        let levels = topicPrefix.split(separator: "/", omittingEmptySubsequences: false)
        guard topicPrefix.utf8.count <= 256, levels.allSatisfy({ Self.isTopicLevel(String($0)) }) else {
            throw DecodingError.dataCorruptedError(forKey: .topicPrefix, in: c, debugDescription:
                "expected topic levels joined by / (each 1 to 64 of A-Z a-z 0-9 . _ -), at most 256 bytes")
        }
        if let text = try c.decodeIfPresent(String.self, forKey: .protocol) {
            guard let choice = MQTTProtocolChoice(rawValue: text) else {
                throw DecodingError.dataCorruptedError(forKey: .protocol, in: c, debugDescription: MQTTProtocolChoice.expected)
            }
            protocolChoice = choice
        }
        tls = try c.decodeIfPresent(MQTTTLSFiles.self, forKey: .tls)
        if tls != nil, !usesTLS {
            throw DecodingError.dataCorruptedError(forKey: .tls, in: c, debugDescription: "TLS files are set but the broker is mqtt://: use mqtts://")
        }
        username = try c.decodeIfPresent(String.self, forKey: .username)
        if let username, username.isEmpty || username.utf8.count > 256 || ControlCharacters.containsSpaceOrControl(username) {
            throw DecodingError.dataCorruptedError(forKey: .username, in: c, debugDescription: "expected 1 to 256 characters without spaces or control characters")
        }
        passwordFile = try c.decodeIfPresent(String.self, forKey: .passwordFile, bytes: 1...1024, expected: "expected a file path of 1 to 1024 bytes")
        if passwordFile != nil, username == nil {
            throw DecodingError.dataCorruptedError(forKey: .passwordFile, in: c, debugDescription: "a password needs a username: set mqtt.username")
        }
        keepalive = try c.decodeIfPresent(Int.self, forKey: .keepalive, in: Self.keepaliveRange, "seconds") ?? keepalive
        statusInterval = try c.decodeIfPresent(Double.self, forKey: .statusInterval, in: Self.statusIntervalRange) ?? statusInterval
        remoteControl = try c.decodeIfPresent(Bool.self, forKey: .remoteControl) ?? remoteControl
        upload = try c.decodeIfPresent(Bool.self, forKey: .upload) ?? upload
        uploadBandwidth = try c.decodeIfPresent(Double.self, forKey: .uploadBandwidth, in: Self.uploadBandwidthRange)
        deleteAfterUpload = try c.decodeIfPresent(Bool.self, forKey: .deleteAfterUpload) ?? deleteAfterUpload
        keepFreeBytes = try c.decodeIfPresent(Int.self, forKey: .keepFreeBytes, in: 0...(1 << 50), "bytes").map(Int64.init)
        if keepFreeBytes != nil, !deleteAfterUpload {
            throw DecodingError.dataCorruptedError(forKey: .keepFreeBytes, in: c, debugDescription: "keepFreeBytes applies to deleteAfterUpload: set it true, or remove keepFreeBytes")
        }
        live = try c.decodeIfPresent([MQTTLiveStream].self, forKey: .live) ?? []
        if live.count > MQTTLiveStream.maximumCount {
            throw DecodingError.dataCorruptedError(forKey: .live, in: c, debugDescription: "at most \(MQTTLiveStream.maximumCount) live streams")
        }
        if let repeated = Dictionary(grouping: live, by: \.device).first(where: { $0.value.count > 1 })?.key {
            throw DecodingError.dataCorruptedError(forKey: .live, in: c, debugDescription:
                "device \(repeated) is listed twice: give one entry its sensorTypes")
        }
        if deleteAfterUpload, !upload {
            throw DecodingError.dataCorruptedError(forKey: .deleteAfterUpload, in: c, debugDescription: "deleteAfterUpload needs upload")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if nodes.count == 1 {
            try c.encode(broker, forKey: .broker)
        } else {
            try c.encode(nodes.map(\.url), forKey: .broker)
        }
        try c.encode(site, forKey: .site)
        try c.encodeIfPresent(device, forKey: .device)
        try c.encode(topicPrefix, forKey: .topicPrefix)
        try c.encode(protocolChoice.rawValue, forKey: .protocol)
        try c.encodeIfPresent(tls, forKey: .tls)
        try c.encodeIfPresent(username, forKey: .username)
        try c.encodeIfPresent(passwordFile, forKey: .passwordFile)
        try c.encode(keepalive, forKey: .keepalive)
        try c.encode(statusInterval, forKey: .statusInterval)
        try c.encode(remoteControl, forKey: .remoteControl)
        try c.encode(upload, forKey: .upload)
        try c.encodeIfPresent(uploadBandwidth, forKey: .uploadBandwidth)
        try c.encode(deleteAfterUpload, forKey: .deleteAfterUpload)
        try c.encodeIfPresent(keepFreeBytes, forKey: .keepFreeBytes)
        if !live.isEmpty { try c.encode(live, forKey: .live) }
    }
}
