@testable import RecorderDaemon
import RecorderModel
import RecorderProtocol
import Testing

/// The connection's flow control without I/O: what it does as events arrive.
@Suite("Control connection flow control (state machine)")
struct ControlConnectionStateTests {
    @Test func requestsAreHandedOverOneAtATime() {
        var s = ControlConnectionState()
        #expect(s.readRequested() == [.read])
        #expect(s.linesFramed(3) == [.deliverLine])
        // While requests wait, nothing more is read.
        #expect(s.readRequested() == [])
        #expect(s.requestAnswered() == [.deliverLine])
        #expect(s.requestAnswered() == [.deliverLine, .read])
        #expect(s.requestAnswered() == [])
        #expect(s.queuedLines == 0 && !s.inFlight)
    }

    /// A client that does not read its replies: its requests stop being answered and its input
    /// stops being read once the socket is unwritable, and resume when it reads again.
    @Test func anUnwritableSocketStopsRequestsAndReading() {
        var s = ControlConnectionState()
        #expect(s.linesFramed(2) == [.deliverLine])
        #expect(s.writabilityChanged(isWritable: false) == [.startUnwritableTimer])
        #expect(s.requestAnswered() == [])
        #expect(s.readRequested() == [])
        #expect(s.writabilityChanged(isWritable: true) == [.cancelUnwritableTimer, .deliverLine, .read])
        #expect(s.requestAnswered() == [])
    }

    @Test func aClientThatNeverReadsIsClosedAfterTheTimeout() {
        var s = ControlConnectionState()
        _ = s.writabilityChanged(isWritable: false)
        #expect(s.unwritableTimerFired(timeout: 60) == [.close(reason: "the client read no replies for 60 s")])
        #expect(s.isClosed)
        // A timer that fires after the client read again does nothing.
        var t = ControlConnectionState()
        _ = t.writabilityChanged(isWritable: false)
        _ = t.writabilityChanged(isWritable: true)
        #expect(t.unwritableTimerFired(timeout: 60) == [])
    }

    @Test func repliesPastTheBoundCloseTheConnection() {
        var s = ControlConnectionState(maximumPendingOutput: 1000)
        #expect(s.outputQueued(600) == [])
        s.outputWritten(600)
        #expect(s.outputQueued(900) == [])
        #expect(s.outputQueued(200) == [.close(reason: "more than 1000 bytes of replies unread")])
        #expect(s.outputQueued(200) == [])
    }

    @Test func aRefusedConnectionTakesNoMoreRequests() {
        var s = ControlConnectionState()
        _ = s.linesFramed(2)
        let error = RPCError(.requestTooLarge, "too long")
        #expect(s.refuse(error) == [.refuse(error)])
        #expect(s.refuse(error) == [])
        #expect(s.requestAnswered() == [])
        #expect(s.linesFramed(1) == [])
        #expect(s.readRequested() == [])
        #expect(s.inputEnded() == [.close(reason: nil)])
    }

    /// A client that sends its requests and shuts its side down still gets every answer.
    @Test func aHalfClosedClientIsAnsweredThenClosed() {
        var s = ControlConnectionState()
        #expect(s.linesFramed(2) == [.deliverLine])
        #expect(s.inputEnded() == [])
        #expect(s.requestAnswered() == [.deliverLine])
        #expect(s.requestAnswered() == [.close(reason: nil)])
    }
}
