import Foundation

/// Fills a small file system (a test's tmpfs) to its last byte with one file, and frees it again.
///
/// The file is opened close-on-exec: the tests run in parallel in one process, and a child another
/// test starts meanwhile (a library's helper, a server a client library launches) would otherwise
/// keep the descriptor — and the space — after `free()`. Once, in CI, a disk stayed full after its
/// filler was unlinked; `describe` says what holds it when that happens again.
public struct DiskFiller {
    public let path: String

    /// Creates `directory/filler`, writes until the file system refuses, and closes it.
    public init(directory: String) throws {
        path = directory + "/filler"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(descriptor) }
        var chunk = [UInt8](repeating: 7, count: 4096)
        while write(descriptor, &chunk, chunk.count) > 0 {}
    }

    /// Removes the file: its space is free again.
    public func free() {
        unlink(path)
    }

    /// Waits (at most `timeout` s) until the file system at `directory` has `bytes` free; false
    /// when it never had them.
    public static func awaitFree(_ directory: String, bytes: UInt64, timeout: Double = 10) async throws -> Bool {
        let deadline = Deadline(seconds: timeout)
        while true {
            let last = deadline.hasPassed
            if let free = freeBytes(directory), free >= bytes { return true }
            if last { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The bytes free on the file system at `directory` (nil: no such file system).
    static func freeBytes(_ directory: String) -> UInt64? {
        var fs = statvfs()
        guard statvfs(directory, &fs) == 0 else { return nil }
        return UInt64(fs.f_bavail) * UInt64(fs.f_frsize)
    }

    /// The file system's free space at `directory`, its files with their sizes and every process
    /// that holds a file in it open (from `/proc/*/fd`) — for a test's failure message.
    public static func describe(_ directory: String) -> String {
        var lines = ["free \(freeBytes(directory).map(String.init) ?? "?") bytes"]
        if let walk = FileManager.default.enumerator(atPath: directory) {
            for case let name as String in walk {
                let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int) ?? nil
                lines.append("\(name) \(size.map(String.init) ?? "?")")
            }
        }
        for pid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int32(pid) != nil {
            for fd in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? [] {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
                      target.hasPrefix(directory + "/") else { continue }
                let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
                lines.append("held by \(pid) (\(command)) fd \(fd): \(target)")
            }
        }
        return lines.joined(separator: "; ")
    }
}
