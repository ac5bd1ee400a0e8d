import Foundation
import Testing

/// What Foxglove's MCAP reader (PyPI `mcap`, through Tests/Tools/check_mcap.py) found in a file.
public struct MCAPCheck: Decodable {
    public struct Statistics: Decodable {
        public var messageCount: Int
        public var channelCount: Int
        public var chunkCount: Int
        public var channelMessageCounts: [String: Int]
        public var start: UInt64
        public var end: UInt64
    }
    public var topics: [String: Int]
    public var schemas: [String: String?]
    public var encodings: [String: String]
    public var decreasing: [String]
    public var dataSectionCrc: UInt32
    public var summaryCrc: UInt32
    public var statistics: Statistics
    public var chunkIndexes: Int
    public var compression: [String]
    public var indexedMessages: Int
    /// Each topic's first message, decoded (JSONSerialization).
    public var first: [String: [String: Any]] = [:]

    enum CodingKeys: String, CodingKey {
        case topics, schemas, encodings, decreasing, dataSectionCrc, summaryCrc, statistics, chunkIndexes, compression, indexedMessages
    }

    public static let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Tools/check_mcap.py").standardized.path

    /// Runs the checker on `path`; a failure of the reader (a CRC, a record) fails the test.
    public static func run(_ path: String) async throws -> MCAPCheck {
        let p = try await ChildProcess("/usr/bin/env", ["python3", checker, path])
        let status = try await p.wait(timeout: 120)
        let printed = p.printed
        try #require(status == 0, "check_mcap.py: \(printed)")
        let json = Data(try #require(printed.split(separator: "\n").last { $0.hasPrefix("{") }).utf8)
        var check = try JSONDecoder().decode(MCAPCheck.self, from: json)
        let raw = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        check.first = raw?["first"] as? [String: [String: Any]] ?? [:]
        return check
    }
}
