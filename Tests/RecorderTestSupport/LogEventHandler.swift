import Logging

/// A log handler that turns one message into an event a test waits on: each time `message` is
/// logged, `seen` gets a value (a library's log lines are its observable events, as the journal's
/// are the executable's).
public struct LogEventHandler: LogHandler {
    public var logLevel: Logger.Level = .trace
    public var metadata: Logger.Metadata = [:]
    let message: String
    let seen: AsyncStream<Void>.Continuation

    public init(message: String, seen: AsyncStream<Void>.Continuation) {
        self.message = message
        self.seen = seen
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        if event.message.description == message { seen.yield() }
    }
}
