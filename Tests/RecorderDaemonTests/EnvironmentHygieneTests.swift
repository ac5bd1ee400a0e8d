import Foundation
import RecorderModel
import RecorderTestSupport
import Testing

/// The environment is set before threads start and only read afterwards: `setenv`, `unsetenv`,
/// `putenv` and `clearenv` reallocate or move glibc's `environ` under any thread reading it
/// (`getenv` in libasound, libjack, SwiftNIO; `ProcessInfo.environment`; a spawn's `envp`), which
/// crashed a CI run of the tests in `strlen`. recorderd never changes its environment (children
/// get `environ` as it is), and the test process sets its variables before `main`
/// (Tests/CTestEnvironment). (Benchmark programs set theirs at the top of `main`, and are not
/// scanned.)
@Suite struct EnvironmentHygieneTests {
    static let calls = ["setenv(", "unsetenv(", "putenv(", "clearenv("]
    /// The test process's constructor (before any thread), and this file, which names the calls.
    static let allowed: Set<String> = ["Tests/CTestEnvironment/test_environment.c", "Tests/RecorderDaemonTests/EnvironmentHygieneTests.swift"]

    @Test func noCodeChangesTheEnvironmentOnceThreadsRun() throws {
        let root = URL(fileURLWithPath: Fixtures.root).deletingLastPathComponent().deletingLastPathComponent().path
        var offenders: [String] = []
        var scanned = 0
        for top in ["Sources", "Tests"] {
            guard let files = FileManager.default.enumerator(atPath: root + "/" + top) else { continue }
            for case let file as String in files where [".swift", ".c", ".h"].contains(where: file.hasSuffix) {
                let relative = top + "/" + file
                guard !Self.allowed.contains(relative) else { continue }
                let text = try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
                scanned += 1
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where Self.calls.contains(where: { line.contains($0) }) && !line.trimmingWhitespace().hasPrefix("//") {
                    offenders.append("\(relative):\(number + 1): \(line.trimmingWhitespace())")
                }
            }
        }
        #expect(scanned > 100, "sources found under \(root)")
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }
}
