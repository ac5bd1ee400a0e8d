/// Something that happens once (the control socket listens; systemd was told READY=1) that
/// others wait for. Waiting after it happened returns at once.
/// Bridge (any thread → waiting tasks): a state reached once (listening, ready) that threads
/// signal and tasks await, without a task per waiter.
public final class OneShotEvent: Sendable {
    public init() {}

    private let waiters = LockedValue<[CheckedContinuation<Void, Never>]?>([])

    /// It happened: every waiter resumes.
    public func signal() {
        let waiting = waiters.withLock { w -> [CheckedContinuation<Void, Never>] in defer { w = nil }; return w ?? [] }
        for waiter in waiting { waiter.resume() }
    }

    /// Whether it has happened.
    public var happened: Bool { waiters.withLock { $0 == nil } }

    /// Returns once it has happened.
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = waiters.withLock { w -> Bool in
                guard w != nil else { return true }
                w!.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
