import Foundation
import Glibc
import RecorderRuntime

/// Waits on files another process writes (a broker's log, a run's files, the fleet's outbox):
/// each look follows an inotify event in their directory (a file written, created, moved in or
/// removed), no polling interval; on a thread of the tests' own, not the cooperative pool.
public enum FileText {
    /// The file's text (nil while there is no such file) once it satisfies `predicate`; nil when
    /// `timeout` seconds pass first.
    public static func await(_ path: String, timeout: Double, where predicate: @escaping @Sendable (String?) -> Bool) async throws -> String? {
        let found = LockedValue<String?>(nil)
        let met = try await until(inDirectory: (path as NSString).deletingLastPathComponent, timeout: timeout) {
            let text = try? String(contentsOfFile: path, encoding: .utf8)
            guard predicate(text) else { return false }
            found.withLock { $0 = text ?? "" }
            return true
        }
        return met ? found.withLock { $0 } : nil
    }

    /// True once `condition` holds, looked at first and then after each change in `directory`;
    /// false when `timeout` seconds pass first. A directory not made yet is waited for through
    /// its nearest existing ancestor (a collector's tree grows as runs arrive).
    public static func until(inDirectory directory: String, timeout: Double, _ condition: @escaping @Sendable () -> Bool) async throws -> Bool {
        try await offPool {
            let watch = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
            guard watch >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { close(watch) }
            let mask = UInt32(IN_MODIFY) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_DELETE)
            var watched = ""
            // Watches the nearest existing ancestor, then deeper ones as they appear; looked at
            // again after each watch is in place, so a directory made meanwhile is not missed.
            func watchDeepest() throws {
                while true {
                    var nearest = directory
                    while !FileManager.default.fileExists(atPath: nearest), nearest != "/" { nearest = (nearest as NSString).deletingLastPathComponent }
                    if nearest == watched { return }
                    guard inotify_add_watch(watch, nearest, mask) >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                    watched = nearest
                }
            }
            let deadline = Deadline(seconds: timeout)
            var events = [UInt8](repeating: 0, count: 4096)
            while true {
                if watched != directory { try watchDeepest() }
                // Looked at after the watch is in place: nothing changed before it is missed.
                if condition() { return true }
                let left = deadline.remaining
                guard left > 0 else { return false }
                var p = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, Int32(min(left * 1000, 60_000).rounded(.up))) > 0 {
                    while read(watch, &events, events.count) > 0 {}
                }
            }
        }
    }

}
