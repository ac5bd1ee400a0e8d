import Foundation
import RecorderTestSupport
import Testing

/// What a change reaches of the full run (scripts/ci/affected over scripts/ci/paths): the map's
/// answers for the changes docs/testing.md names, the same through git against a base commit, and
/// a map that keeps every tracked path matched and names only the full run's phases.
@Suite("CI: what a change reaches of the full run")
struct CIAffectedTests {
    static let root = ArchitectureTests.root
    static let affected = root + "/scripts/ci/affected"

    /// The phases `affected` prints for ARGUMENTS, run in `directory`.
    static func phases(_ arguments: [String], script: String = affected) async throws -> [String] {
        let (status, printed) = try await ChildProcess.run("/bin/bash", [script] + arguments, timeout: 60)
        try #require(status == 0, "affected \(arguments.joined(separator: " ")): \(printed)")
        return printed.split(whereSeparator: \.isWhitespace).map(String.init)
    }

    @Test("systemd/ reaches the guests, the JSON codec the fuzzers, README.md alone nothing", .ownThread)
    func theMapAnswersForTheChangesTheDocumentationNames() async throws {
        #expect(try await Self.phases(["--files", "systemd/recorderd.service"]) == ["guests", "arm64-package"])
        let codec = try await Self.phases(["--files", "Sources/RecorderJSON/JSONTextEncoder.swift"])
        #expect(codec.contains("fuzz") && codec.contains("arm64-build"), "\(codec)")
        #expect(try await Self.phases(["--files", "README.md"]).isEmpty)
        #expect(try await Self.phases(["--files", "README.md", "docs/testing.md", "BENCHMARKS.md"]).isEmpty)
        // Concurrency in the engine: TSan; the Pi's compiler for any source; the order is the full run's.
        #expect(try await Self.phases(["--files", "Sources/RecorderEngine/TaskRun.swift"]) == ["tsan", "guests", "arm64-build", "arm64-suites", "arm64-package"])
        #expect(try await Self.phases(["--files", "Package.swift"]) == ["tsan", "fuzz", "guests", "arm64-build", "arm64-suites", "arm64-package"])
        // A path no line names takes every phase.
        #expect(try await Self.phases(["--files", "newfolder/file.txt"]).count == 6)
    }

    /// Through git: the change between a base commit and the working tree (a commit, an
    /// uncommitted edit, a new file), in a repository of the scripts' own.
    @Test(.ownThread) func theChangeSinceABaseCommitIsReadFromGit() async throws {
        let repository = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: repository) }
        func git(_ arguments: [String]) async throws {
            let (status, printed) = try await ChildProcess.run("/usr/bin/git", ["-C", repository, "-c", "user.name=t", "-c", "user.email=t@example.org"] + arguments,
                                                               timeout: 60)
            try #require(status == 0, "git \(arguments.joined(separator: " ")): \(printed)")
        }
        func write(_ path: String, _ text: String) throws {
            let url = URL(fileURLWithPath: repository + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try FileManager.default.createDirectory(atPath: repository + "/scripts/ci", withIntermediateDirectories: true)
        for file in ["affected", "paths"] {
            try FileManager.default.copyItem(atPath: Self.root + "/scripts/ci/" + file, toPath: repository + "/scripts/ci/" + file)
        }
        try write("README.md", "first\n")
        try write("systemd/recorderd.service", "[Unit]\n")
        try await git(["init", "-q"])
        try await git(["add", "-A"])
        try await git(["commit", "-q", "-m", "base"])
        let script = repository + "/scripts/ci/affected"
        #expect(try await Self.phases(["HEAD"], script: script).isEmpty, "no change")
        try write("README.md", "second\n")
        try await git(["commit", "-q", "-am", "docs"])
        #expect(try await Self.phases(["HEAD~1"], script: script).isEmpty, "a README change reaches nothing")
        try write("systemd/recorderd.service", "[Unit]\nDescription=x\n")
        #expect(try await Self.phases(["HEAD~1"], script: script) == ["guests", "arm64-package"], "an uncommitted unit change")
        try write("Fuzz/Corpus/requests/new", "{}\n")
        #expect(try await Self.phases(["HEAD~1"], script: script) == ["fuzz", "guests", "arm64-package"], "and a new file")
        let (status, printed) = try await ChildProcess.run("/bin/bash", [script, "no-such-commit"], timeout: 60)
        #expect(status == 64 && printed.contains("not a commit"), "\(printed)")
    }

    /// Every tracked path matches a line of the map (a new folder gets a line of its own rather
    /// than every phase by default), and the phases the map and `affected` know are the full run's.
    @Test(.ownThread) func everyTrackedPathIsMappedToPhasesTheFullRunHas() async throws {
        let (status, files) = try await ChildProcess.run("/usr/bin/git", ["-C", Self.root, "ls-files"], timeout: 60)
        try #require(status == 0, "\(files)")
        let paths = files.split(separator: "\n").map(String.init)
        let (explained, printed) = try await ChildProcess.run("/bin/bash", [Self.affected, "--explain", "--files"] + paths, timeout: 120)
        #expect(explained == 0)
        let unmatched = printed.split(separator: "\n").filter { $0.contains("no line of the map") }
        #expect(unmatched.isEmpty, "paths no line of scripts/ci/paths matches: \(unmatched.joined(separator: "\n"))")
        let (listed, list) = try await ChildProcess.run("/bin/bash", [Self.root + "/scripts/ci/full", "--list"], timeout: 60)
        #expect(listed == 0)
        let full = list.split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(try await Self.phases(["--files", "Package.swift"]) == full, "affected's order is the full run's")
    }
}
