import Foundation

/// A datagram socket standing in for systemd's notify socket. A thread of its own drains it as
/// messages arrive, as systemd does: a datagram socket holds only `net.unix.max_dgram_qlen`
/// (often 10) messages, and a test that read only when it asked for the next one let recorderd's
/// `sd_notify` block behind a full socket on a loaded machine, so STOPPING=1 never left before
/// recorderd exited.
public final class NotifySocket: Sendable {
    public let path: String
    private let inbox = Inbox()

    public init(path: String) throws {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let bound = UnixSocketAddress.with(path) { bind(fd, $0, $1) }
        guard bound == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        let inbox = inbox
        Thread { inbox.drain(fd) }.start()
    }

    deinit {
        inbox.close()
        unlink(path)
    }

    /// The next message, or nil after `timeout` seconds (waited for off the cooperative pool).
    public func next(timeout: Double) async throws -> String? {
        let inbox = inbox
        return try await offPool { inbox.take(timeout: timeout) }
    }

    /// The messages received and not yet taken, behind a condition.
    private final class Inbox: @unchecked Sendable {
        // @unchecked: `messages` and `closed` are only touched with `condition` locked.
        private let condition = NSCondition()
        private var messages: [String] = []
        private var closed = false

        /// Reads `fd` until closed, then closes it (runs on its own thread).
        func drain(_ fd: Int32) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !isClosed {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 100) == 1 else { continue }
                let n = recv(fd, &buffer, buffer.count, 0)
                guard n > 0 else { continue }
                condition.lock()
                messages.append(String(decoding: buffer[0..<n], as: UTF8.self))
                condition.broadcast()
                condition.unlock()
            }
            Foundation.close(fd)
        }

        func take(timeout: Double) -> String? {
            let deadline = Date(timeIntervalSinceNow: timeout)
            condition.lock()
            defer { condition.unlock() }
            while messages.isEmpty, !closed {
                guard condition.wait(until: deadline) else { break }
            }
            return messages.isEmpty ? nil : messages.removeFirst()
        }

        var isClosed: Bool {
            condition.lock()
            defer { condition.unlock() }
            return closed
        }

        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }
    }
}
