import Foundation
import Glibc

/// Waits on a file another process writes (a broker's log): each look follows an inotify event
/// on its directory (the file written, created or moved in), no polling interval; on a thread of
/// the tests' own, not the cooperative pool.
public enum FileText {
    /// The file's text (nil while there is no such file) once it satisfies `predicate`; nil when
    /// `timeout` seconds pass first.
    public static func await(_ path: String, timeout: Double, where predicate: @escaping @Sendable (String?) -> Bool) async throws -> String? {
        try await offPool {
            let watch = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
            guard watch >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { close(watch) }
            let directory = (path as NSString).deletingLastPathComponent
            guard inotify_add_watch(watch, directory, UInt32(IN_MODIFY) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE)) >= 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            let deadline = Deadline(seconds: timeout)
            var events = [UInt8](repeating: 0, count: 4096)
            while true {
                // Looked at after the watch is in place: nothing written before it is missed.
                let text = try? String(contentsOfFile: path, encoding: .utf8)
                if predicate(text) { return text ?? "" }
                let left = deadline.remaining
                guard left > 0 else { return nil }
                var p = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, Int32(min(left * 1000, 60_000).rounded(.up))) > 0 {
                    while read(watch, &events, events.count) > 0 {}
                }
            }
        }
    }
}
