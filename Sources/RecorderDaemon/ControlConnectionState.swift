import RecorderConfiguration
import RecorderJSON
import RecorderModel
import RecorderProtocol

/// The flow control of one control connection as a pure state machine: the channel handler
/// reports what happened, carries out the returned actions, and does no deciding of its own
/// (house style: `TaskRunRules`, `WatchdogPolicy`).
///
/// Requests are answered one at a time, in order. A client that does not read its replies makes
/// the socket unwritable: recorderd then hands it no further request and stops reading its input
/// (backpressure), so its replies can never pile up beyond the socket's high-water mark and one
/// reply; if replies still exceed `maximumPendingOutput`, or the socket stays unwritable for
/// `unwritableTimeout`, the connection is closed. Input is read only while no complete request
/// waits, so what a connection holds is bounded by one read and one unfinished line.
struct ControlConnectionState: Sendable, Equatable {
    /// What the handler must do, in order.
    enum Action: Sendable, Equatable {
        /// Hand the next queued request line to the connection's request loop.
        case deliverLine
        /// Ask the socket for more input.
        case read
        /// Start (or restart) the timer that closes a connection that stays unwritable.
        case startUnwritableTimer
        case cancelUnwritableTimer
        /// Send this error (id null), close the output, discard further input, close soon.
        case refuse(RPCError)
        /// Close the connection now; a reason is logged (nil: the client ended it).
        case close(reason: String?)
    }

    let maximumPendingOutput: Int
    /// Complete request lines waiting to be handed over.
    private(set) var queuedLines = 0
    /// A request is being answered.
    private(set) var inFlight = false
    private(set) var writable = true
    /// NIO asked to read while reading was paused: resume when the pause ends.
    private(set) var readHeld = false
    /// Reply bytes written and not yet taken by the socket.
    private(set) var pendingOutput = 0
    /// The connection refused a request line (or is closing): no more input is handled.
    private(set) var isRefused = false
    private(set) var isClosed = false
    /// The client closed its side: answer what it sent, then close.
    private(set) var inputHasEnded = false

    init(maximumPendingOutput: Int = DaemonLimits.maximumPendingOutput) {
        self.maximumPendingOutput = maximumPendingOutput
    }

    /// May input be read now?
    var canRead: Bool { !isRefused && !isClosed && !inputHasEnded && queuedLines == 0 && writable }

    /// NIO asks to read (after each read, with auto-read).
    mutating func readRequested() -> [Action] {
        if canRead { return [.read] }
        readHeld = true
        return []
    }

    /// `count` complete request lines were framed.
    mutating func linesFramed(_ count: Int) -> [Action] {
        guard !isRefused, !isClosed else { return [] }
        queuedLines += count
        return pump()
    }

    /// The request handed over last has been answered (its reply is written).
    mutating func requestAnswered() -> [Action] {
        inFlight = false
        return pump()
    }

    /// The socket's writability changed.
    mutating func writabilityChanged(isWritable: Bool) -> [Action] {
        guard isWritable != writable else { return [] }
        writable = isWritable
        guard !isClosed else { return [] }
        if !isWritable { return [.startUnwritableTimer] }
        return [.cancelUnwritableTimer] + pump()
    }

    /// `bytes` of reply or notification were queued for the socket.
    mutating func outputQueued(_ bytes: Int) -> [Action] {
        pendingOutput += bytes
        guard pendingOutput > maximumPendingOutput, !isClosed else { return [] }
        isClosed = true
        return [.close(reason: "more than \(maximumPendingOutput) bytes of replies unread")]
    }

    /// `bytes` of output were taken by the socket (or dropped with it).
    mutating func outputWritten(_ bytes: Int) {
        pendingOutput = max(0, pendingOutput - bytes)
    }

    /// The socket stayed unwritable for the whole timeout.
    mutating func unwritableTimerFired(timeout: Double) -> [Action] {
        guard !writable, !isClosed else { return [] }
        isClosed = true
        return [.close(reason: "the client read no replies for \(NumberRange.format(timeout)) s")]
    }

    /// A request line is refused (too long, the input budget is spent, not finished in time).
    mutating func refuse(_ error: RPCError) -> [Action] {
        guard !isRefused, !isClosed else { return [] }
        isRefused = true
        queuedLines = 0
        return [.refuse(error)]
    }

    /// The client shut its side down (half-closure): its queued requests are still answered.
    mutating func inputEnded() -> [Action] {
        inputHasEnded = true
        if isRefused, !isClosed {
            isClosed = true
            return [.close(reason: nil)]
        }
        return pump()
    }

    /// The channel closed.
    mutating func closed() {
        isClosed = true
        queuedLines = 0
    }

    /// Hands over the next request when nothing is in flight and replies flow; resumes reading
    /// when nothing waits.
    private mutating func pump() -> [Action] {
        guard !isClosed, !isRefused else { return [] }
        if queuedLines > 0 {
            guard !inFlight, writable else { return [] }
            queuedLines -= 1
            inFlight = true
            var actions: [Action] = [.deliverLine]
            if readHeld, canRead {
                readHeld = false
                actions.append(.read)
            }
            return actions
        }
        if inputHasEnded, !inFlight {
            isClosed = true
            return [.close(reason: nil)]
        }
        if readHeld, canRead {
            readHeld = false
            return [.read]
        }
        return []
    }
}
