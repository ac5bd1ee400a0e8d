import FoundationEssentials
import Glibc

/// What a task screen's browser sends, in order, for the presenter to wait on; closed when the
/// socket ends or the session is cancelled (a waiting presenter then gets nil).
actor BrowserInbox {
    enum Message: Sendable, Equatable {
        /// The participant is ready (Next, Done).
        case next
        /// The text typed or chosen for a question; nil: skipped.
        case answer(String?)
    }

    private var queue: [Message] = []
    private var waiter: CheckedContinuation<Message?, Never>?
    private var closed = false

    func put(_ message: Message) {
        guard !closed else { return }
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: message)
        } else {
            queue.append(message)
        }
    }

    func close() {
        closed = true
        waiter?.resume(returning: nil)
        waiter = nil
    }

    /// The next message, waiting for it; nil once closed.
    func next() async -> Message? {
        if !queue.isEmpty { return queue.removeFirst() }
        if closed { return nil }
        return await withCheckedContinuation { waiter = $0 }
    }
}
