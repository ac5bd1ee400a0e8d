import Foundation
import Testing

/// What Python's zipfile (through Tests/Tools/check_sage.py) found in a SageResearch archive; the
/// entries are extracted into `directory`.
public struct SageCheck: Decodable {
    public struct ArrayFile: Decodable {
        public var count: Int
        public var markerFirst: Bool
        public var keys: [String]
    }
    public var entries: [String]
    public var arrays: [String: ArrayFile]
    public var compression: [Int]
    public var directory = ""

    enum CodingKeys: String, CodingKey { case entries, arrays, compression }

    static let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Tools/check_sage.py").standardized.path

    public static func run(_ archive: String) async throws -> SageCheck {
        let directory = try Fixtures.temporaryDirectory()
        let p = try await ChildProcess("/usr/bin/env", ["python3", checker, archive, directory])
        let status = try await p.wait(timeout: 60)
        let printed = p.printed
        try #require(status == 0, "check_sage.py: \(printed)")
        var check = try JSONDecoder().decode(SageCheck.self, from: Data(try #require(printed.split(separator: "\n").last { $0.hasPrefix("{") }).utf8))
        check.directory = directory
        return check
    }
}
