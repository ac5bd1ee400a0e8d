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

    /// Runs a command and returns its exit status (for mount/umount in tests; at most 60 s).
    @discardableResult
    public static func run(_ arguments: [String]) throws -> Int32 {
        try ChildProcess("/usr/bin/env", arguments).waitBlocking(timeout: 60)
    }
}

/// Whether the tests that drive a real headless Chromium (selenium and chromedriver, installed by
/// `.ci/run` through scripts/setup.sh) run here: always under CI (and fail if they cannot);
/// elsewhere skipped with a printed reason when either is missing.
public enum Browser {
    public static let chromedriver = "/usr/bin/chromedriver"

    public static func testsEnabled(_ name: String) -> Bool {
        if Privileges.isCI { return true }
        guard FileManager.default.isExecutableFile(atPath: chromedriver) else {
            print("SKIP \(name): needs Debian's chromium and chromium-driver (scripts/setup.sh); runs under CI")
            return false
        }
        guard (try? Privileges.run(["python3", "-c", "import selenium"])) == 0 else {
            print("SKIP \(name): needs PyPI selenium (scripts/python-requirements.txt); runs under CI")
            return false
        }
        return true
    }
}
