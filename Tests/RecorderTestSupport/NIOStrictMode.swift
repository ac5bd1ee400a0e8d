import Foundation

/// SwiftNIO traps, instead of printing a line, when work is scheduled from another thread on an
/// event loop that has shut down (`SWIFTNIO_STRICT`; "will be upgraded to a forced crash in future
/// SwiftNIO versions"), so such a daemon bug fails the run instead of scrolling past. The test
/// process has it from before `main` (CTestEnvironment); spawned processes inherit it.
public enum NIOStrictMode {
    /// True when this process runs with `SWIFTNIO_STRICT=1`.
    public static var isOn: Bool { ProcessInfo.processInfo.environment["SWIFTNIO_STRICT"] == "1" }
}
