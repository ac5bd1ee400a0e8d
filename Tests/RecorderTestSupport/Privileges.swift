import Foundation

/// Whether a test that needs root may run here. Under CI (`CI` set) such tests always run (and
/// fail if they cannot); elsewhere they are skipped with a printed reason.
public enum Privileges {
    public static var isRoot: Bool { geteuid() == 0 }
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty && $0 != "false" } ?? false }

    /// True when a root-only test should run; prints why it does not otherwise.
    public static func rootTestsEnabled(_ name: String) -> Bool {
        if isRoot || isCI { return true }
        print("SKIP \(name): needs root (mounts a tmpfs); runs under CI")
        return false
    }

    /// Runs a command and returns its exit status (at most 60 s).
    @discardableResult
    public static func run(_ arguments: [String]) async throws -> Int32 {
        try await ChildProcess("/usr/bin/env", arguments).wait(timeout: 60)
    }

    /// Mounts a tmpfs of `size` (mount's syntax: `1m`, `256k`) on `directory` (mount(2): no
    /// process); true when mounted. A full disk in a test.
    public static func mountTmpfs(at directory: String, size: String) -> Bool {
        let mounted = mount("tmpfs", directory, "tmpfs", 0, "size=\(size)") == 0
        if !mounted { print("mount tmpfs on \(directory): \(String(cString: strerror(errno)))") }
        return mounted
    }

    /// Detaches the file system mounted on `directory` (umount2 with MNT_DETACH: at once, even
    /// while a daemon still has files open there).
    public static func unmount(_ directory: String) {
        _ = umount2(directory, Int32(MNT_DETACH))
    }
}

/// Whether the tests that drive a real headless Chromium (selenium and chromedriver, installed by
/// `.ci/run` through scripts/setup.sh) run here: always under CI (and fail if they cannot);
/// elsewhere skipped with a printed reason when either is missing.
public enum Browser {
    public static let chromedriver = "/usr/bin/chromedriver"

    public static func testsEnabled(_ name: String) async -> Bool {
        if Privileges.isCI { return true }
        guard FileManager.default.isExecutableFile(atPath: chromedriver) else {
            print("SKIP \(name): needs Debian's chromium and chromium-driver (scripts/setup.sh); runs under CI")
            return false
        }
        guard (try? await Privileges.run(["python3", "-c", "import selenium"])) == 0 else {
            print("SKIP \(name): needs PyPI selenium (scripts/python-requirements.txt); runs under CI")
            return false
        }
        return true
    }
}
