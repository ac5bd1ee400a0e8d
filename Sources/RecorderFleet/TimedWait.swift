import RecorderModel
import RecorderRuntime

/// One wait for a yes/no outcome (a broker's acknowledgement, a collector's answer, a wake-up):
/// resolved once — by the outcome, the timeout, cancellation or the end, whichever comes first,
/// before or after the waiter suspends.
/// Bridge (libmosquitto's thread → a task): the broker's acknowledgement arrives on the library's
/// own thread, and the waiting task needs a deadline.
final class TimedWait: Sendable {
    private let state = LockedValue<(result: Bool?, continuation: CheckedContinuation<Bool, Never>?)>((nil, nil))

    func resolve(_ value: Bool) {
        let continuation = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard s.result == nil else { return nil }
            s.result = value
            defer { s.continuation = nil }
            return s.continuation
        }
        continuation?.resume(returning: value)
    }

    func value() async -> Bool {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Bool? in
                if let r = s.result { return r }
                s.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The outcome, or false after `timeout` seconds or on cancellation. At the timeout
    /// `withdraw` removes this wait from its owner's state and says whether it was still there
    /// (if not, the outcome is on its way and is the answer).
    func value(timeout: Double, withdraw: @escaping @Sendable () -> Bool) async -> Bool {
        let timer = Task {
            do { try await Task.sleep(for: .seconds(timeout)) } catch { return }
            if withdraw() { self.resolve(false) }
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler { await value() } onCancel: { self.resolve(false) }
    }
}
