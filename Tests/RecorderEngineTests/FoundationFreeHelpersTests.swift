import Foundation
import RecorderRuntime
import RecorderTestSupport
import Testing

/// The helpers that replace all of Foundation on the client side (which imports
/// FoundationEssentials alone), against Foundation itself in the same process: the peer they stand in for.
@Suite("The client side's Foundation-free helpers agree with Foundation")
struct FoundationFreeHelpersTests {
    @Test(arguments: [
        ("%.3g", [0.000123456, 1234.5678, -0.5, 1e21, Double.nan, Double.infinity] as [Double]),
        ("%.1f", [0, 0.05, 0.15, 2.25, -3.96, 1234567.891]),
        ("%10.3f   ", [12.3456, -0.0004]),
        ("%7.1f s", [0.04, 99999.96]),
    ])
    func numbersAsStringFormatWritesThem(_ format: String, _ values: [Double]) {
        for value in values {
            #expect(CFormat.string(format, value) == String(format: format, value), "\(format) \(value)")
        }
    }

    @Test func integersAndSeveralArguments() {
        #expect(CFormat.string("%04d-%02d-%02d %02d:%02d:%02d UTC", 2026, 12, 7, 9, 5, 3) == "2026-12-07 09:05:03 UTC")
        #expect(CFormat.string("%02x", UInt32(0xAB)) == String(format: "%02x", 0xAB))
        let long = CFormat.string("%0300d", 7)
        #expect(long.count == 300 && long.hasSuffix("07"), "longer than the first buffer")
    }

    @Test func resolvingSymlinksAsNSStringDoes() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/real/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/real")
        let real = (dir as NSString).resolvingSymlinksInPath
        for path in ["/link/sub", "/link/sub/new.zip", "/link/./sub/../sub", "/real/missing/deeper"] {
            #expect(FileStatus.resolvingSymlinks(dir + path) == (dir + path as NSString).resolvingSymlinksInPath, "\(path)")
        }
        #expect(FileStatus.resolvingSymlinks(dir + "/link/sub") == real + "/real/sub")
        #expect(FileStatus.isDirectory(dir + "/link") && !FileStatus.isRegularFile(dir + "/link") && !FileStatus.exists(dir + "/none"))
    }

    @Test(arguments: ["/a/b", "/a/b/", "/", "a/b", "/a//b/./c/../d", "/a/b/.."])
    func pathTextAsNSStringDoes(_ path: String) {
        #expect(PathText.lastComponent(of: path) == (path as NSString).lastPathComponent)
        // NSString also folds repeated slashes there; PathText keeps them (the file system reads
        // both alike), so the path is compared folded.
        #expect(PathText.parent(of: path.replacing("//", with: "/")) == (path as NSString).deletingLastPathComponent)
        if path.hasPrefix("/") { #expect(PathText.standardized(path) == (path as NSString).standardizingPath) }
    }
}
