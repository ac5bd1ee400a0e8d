/// Where a subscription's notifications go: the stream a `subscribe` call returned, fed on the
/// reader thread with each `LiveBatch` or what its caller takes of it (the records).
struct LiveSink: Sendable {
    let yield: @Sendable (LiveBatch) -> Void
    let finish: @Sendable (any Error) -> Void
    private let setTermination: @Sendable (@escaping @Sendable () -> Void) -> Void

    init<Element: Sendable>(_ continuation: AsyncThrowingStream<Element, any Error>.Continuation, _ element: @escaping @Sendable (LiveBatch) -> Element) {
        yield = { continuation.yield(element($0)) }
        finish = { continuation.finish(throwing: $0) }
        setTermination = { action in continuation.onTermination = { _ in action() } }
    }

    /// Runs `action` once the stream ends (its consumer stopped, or `finish`).
    func onTermination(_ action: @escaping @Sendable () -> Void) {
        setTermination(action)
    }
}
