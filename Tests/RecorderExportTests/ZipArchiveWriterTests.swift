import Foundation
@testable import RecorderExport
import RecorderJSON
import RecorderRuntime
import RecorderTestSupport
import Testing

/// recorderd's zip writer, read back by independent readers: Python's zipfile (every entry's CRC,
/// its content, size, method and DOS time) and Info-ZIP's `unzip -t`.
@Suite("Zip archives (the sage export, the page's CSV download)")
struct ZipArchiveWriterTests {
    static let reader = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Tools/read_zip.py").standardized.path

    struct Entry: Decodable, Equatable {
        let name: String
        let size: Int
        let method: Int
        let dateTime: [Int]
        let directory: Bool
        let sha256: String
        let mode: Int
    }

    static func entries(of archive: String) async throws -> [Entry] {
        let (status, printed) = try await ChildProcess.run("/usr/bin/env", ["python3", reader, archive], timeout: 120)
        try #require(status == 0, "read_zip.py: \(printed)")
        return try printed.split(separator: "\n").map { try JSONDecoder().decode(Entry.self, from: Data($0.utf8)) }
    }

    static func hex(_ bytes: [UInt8]) -> String { SHA256.hex(bytes) }

    /// 2026-12-07T12:34:56Z.
    static let modified: Int64 = 1_796_646_896

    @Test(.ownThread) func filesBytesAndFoldersReadBackByZipfileAndUnzip() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A file larger than the writer's 64 KiB pieces and zlib's window, of lines that
        // compress, with a tail that does not; an empty file; text with non-ASCII names.
        var big: [UInt8] = []
        var generator = SplitMix(seed: 7)
        for i in 0..<40_000 { big += Array("{\"uptime\":\(Double(i) / 100),\"x\":\(i % 97)}\n".utf8) }
        for _ in 0..<100_000 { big.append(UInt8.random(in: 0...255, using: &generator)) }
        FileManager.default.createFile(atPath: dir + "/big.jsonl", contents: Data(big))
        FileManager.default.createFile(atPath: dir + "/empty", contents: Data())
        let archive = dir + "/out.zip"
        let writer = try ZipArchiveWriter(creating: archive)
        try writer.add(name: "motion.jsonl", contentsOf: dir + "/big.jsonl", modified: Self.modified)
        try writer.add(name: "empty.txt", contentsOf: dir + "/empty", modified: Self.modified)
        try writer.add(name: "taskResult.json", bytes: Array("{\"taskIdentifier\":\"walk\"}\n".utf8), modified: Self.modified + 1)
        try writer.addDirectory(name: "séance/ünïcode", modified: Self.modified)
        try writer.add(name: "séance/ünïcode/Gehstrecke.json", bytes: Array("[]".utf8), modified: Self.modified)
        try writer.finish()

        let entries = try await Self.entries(of: archive)
        #expect(entries.map(\.name) == ["motion.jsonl", "empty.txt", "taskResult.json", "séance/ünïcode/", "séance/ünïcode/Gehstrecke.json"])
        #expect(entries[0] == Entry(name: "motion.jsonl", size: big.count, method: 8, dateTime: [2026, 12, 7, 12, 34, 56], directory: false,
                                    sha256: Self.hex(big), mode: 0o644))
        #expect(entries[1].size == 0 && entries[1].sha256 == Self.hex([]))
        // DOS times have two-second steps: 12:34:57 is written as 12:34:56.
        #expect(entries[2].dateTime == [2026, 12, 7, 12, 34, 56] && entries[2].sha256 == Self.hex(Array("{\"taskIdentifier\":\"walk\"}\n".utf8)))
        #expect(entries[3].directory && entries[3].mode == 0o755)
        // Deflated: the compressible part shrinks (the archive is far smaller than what it holds).
        let size = try #require(try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int)
        #expect(size < big.count / 2, "\(size) bytes for \(big.count)")

        let (status, printed) = try await ChildProcess.run("/usr/bin/unzip", ["-t", archive], timeout: 120)
        #expect(status == 0 && printed.contains("No errors detected"), "\(printed)")
        // Info-ZIP reads the exact time from the extended timestamp field (zipinfo -T: UTC with TZ=UTC).
        let (_, listed) = try await ChildProcess.run("/usr/bin/zipinfo", ["-T", archive, "taskResult.json"], environment: ["TZ": "UTC"], timeout: 60)
        #expect(listed.contains("20261207.123457"), "\(listed)")
    }

    @Test(.ownThread) func aFolderTreeZippedUnderItsName() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/walk.csv/sub", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: dir + "/walk.csv/b.csv", contents: Data("t,x\n1,2\n".utf8))
        FileManager.default.createFile(atPath: dir + "/walk.csv/a.csv", contents: Data("t,y\n".utf8))
        FileManager.default.createFile(atPath: dir + "/walk.csv/sub/c.csv", contents: Data())
        try ZipArchiveWriter.zip(folder: dir + "/walk.csv", as: "walk.csv", to: dir + "/walk.csv.zip")
        let entries = try await Self.entries(of: dir + "/walk.csv.zip")
        #expect(entries.map(\.name) == ["walk.csv/", "walk.csv/a.csv", "walk.csv/b.csv", "walk.csv/sub/", "walk.csv/sub/c.csv"])
        #expect(entries[2].sha256 == Self.hex(Array("t,x\n1,2\n".utf8)))
    }

    @Test(arguments: ["../escape.json", "/etc/passwd", "a//b", "a/./b", "a/../b", "a\\b", "", "line\nbreak", "..", "a/.."])
    func namesAnUnzipWouldPutOutsideItsFolderAreRefused(_ name: String) throws {
        #expect(throws: ExportError.self) { try ZipArchiveWriter.check(name) }
    }

    @Test func aRefusedEntryLeavesNoArchiveBehind() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try ZipArchiveWriter(creating: dir + "/x.zip")
        try writer.add(name: "a", bytes: [1], modified: 0)
        #expect(throws: ExportError.output("\(dir)/x.zip: a is in the archive already")) { try writer.add(name: "a", bytes: [2], modified: 0) }
        // zip(folder:) removes an archive it could not finish: a folder with a FIFO in it.
        try FileManager.default.createDirectory(atPath: dir + "/f", withIntermediateDirectories: true)
        #expect(mkfifo(dir + "/f/pipe", 0o600) == 0)
        #expect(throws: ExportError.self) { try ZipArchiveWriter.zip(folder: dir + "/f", as: "f", to: dir + "/f.zip") }
        #expect(!FileManager.default.fileExists(atPath: dir + "/f.zip"))
        // Never over an existing file.
        #expect(throws: ExportError.self) { _ = try ZipArchiveWriter(creating: dir + "/x.zip") }
    }

    @Test func dosTimesAreHeldToTheirRange() {
        var before = ZipBytes(), after = ZipBytes(), leap = ZipBytes()
        before.dosTime(0)  // 1970: DOS starts in 1980
        after.dosTime(Int64(Int32.max) * 4)
        leap.dosTime(1_709_208_000)  // 2024-02-29T12:00:00Z
        #expect(before.bytes == [0, 0, 0x21, 0])  // 1980-01-01 00:00:00
        #expect(after.bytes == [0x7D, 0xBF, 0x9F, 0xFF])  // 2107-12-31 23:59:58
        #expect(leap.bytes == [0x00, 0x60, 0x5D, 0x58])  // 2024-02-29 12:00:00
    }
}
