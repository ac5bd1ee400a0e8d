import Foundation

/// What the kernel's `iio-trig-hrtimer` does when a directory is made in
/// `/sys/kernel/config/iio/triggers/hrtimer/`: a trigger device of that name appears in sysfs
/// (`triggerN/name`, and a `sampling_frequency`: 50 Hz here, not the kernel's default of 100, so a test sees recorderd set it). The machine's kernel has no
/// such module (nor configfs), so a fake tree gets this: its configfs directory (which the
/// namespace mounts at `/sys/kernel/config`) and a thread blocked in inotify that answers each new
/// directory as the kernel would.
public final class FakeHrtimerKernel: Sendable {
    public let tree: FakeIIOTree
    private let inotify: Int32
    private let watch: Int32

    /// The hrtimer directory (host path).
    public var hrtimerDirectory: String { tree.configfs + "/iio/triggers/hrtimer" }

    public init(tree: FakeIIOTree) throws {
        self.tree = tree
        let directory = tree.configfs + "/iio/triggers/hrtimer"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        inotify = inotify_init1(Int32(IN_CLOEXEC))
        guard inotify >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        watch = inotify_add_watch(inotify, directory, UInt32(IN_CREATE | IN_ONLYDIR))
        guard watch >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ENOENT) }
        let (inotify, tree) = (self.inotify, tree)
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var next = 0
            while true {
                let n = read(inotify, &buffer, buffer.count)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { close(inotify); return }
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= n {
                    let (mask, length) = buffer.withUnsafeBytes { raw in
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        return (event.mask, Int(event.len))
                    }
                    // `stop` removed the watch: the thread ends and closes the descriptor.
                    if mask & UInt32(IN_IGNORED) != 0 { close(inotify); return }
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = buffer[nameStart..<min(n, nameStart + length)].prefix { $0 != 0 }
                    if mask & UInt32(IN_CREATE) != 0 {
                        try? tree.addTrigger(id: "trigger\(100 + next)", name: String(decoding: nameBytes, as: UTF8.self), samplingFrequency: 50)
                        next += 1
                    }
                    offset = nameStart + length
                }
            }
        }
        thread.name = "fake-hrtimer"
        thread.start()
    }

    /// Stops the thread: removing the watch wakes its read with IN_IGNORED, and it ends.
    public func stop() {
        inotify_rm_watch(inotify, watch)
    }
}
