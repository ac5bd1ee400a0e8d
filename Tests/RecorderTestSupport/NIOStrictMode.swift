import Foundation

/// SwiftNIO traps, instead of printing a line, when work is scheduled from another thread on an
/// event loop that has shut down (`SWIFTNIO_STRICT`; "will be upgraded to a forced crash in future
/// SwiftNIO versions"). Tests turn it on so such a daemon bug fails the run instead of scrolling
/// past. NIO reads the variable at the first such event, so setting it before then is enough;
/// spawned processes (`ChildProcess`) inherit it.
public enum NIOStrictMode {
    private static let enabled: Void = { setenv("SWIFTNIO_STRICT", "1", 1) }()

    /// Sets the variable for this process (once).
    public static func enable() { _ = enabled }
}
