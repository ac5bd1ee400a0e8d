@testable import RecorderWeb
import Testing

/// The web page's request framing rules without I/O: what `RequestFraming` answers for bytes as
/// they arrive and for a head's deadline.
@Suite("Request framing rules")
struct RequestFramingTests {
    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func aHeadInOnePieceNeedsNoDeadlineAndTheNextOneStartsOne() {
        var framing = RequestFraming()
        #expect(framing.received(bytes("GET / HTTP/1.1\r\nHost: a\r\n\r\n")) == .forward(.keep))
        #expect(framing.received(bytes("GET /runs HTTP/1.1\r\n")) == .forward(.start))
        #expect(framing.received(bytes("Host: a\r\n")) == .forward(.keep))
        #expect(framing.received(bytes("\r\n")) == .forward(.cancel))
        #expect(framing.deadlinePassed() == nil)
    }

    @Test func aHeadEndSplitAcrossReadsIsFound() {
        for split in 1..<4 {
            var framing = RequestFraming()
            let text = bytes("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
            #expect(framing.received(text.dropLast(split)) == .forward(.start))
            #expect(framing.received(text.suffix(split)) == .forward(.cancel), "split \(split)")
            #expect(!framing.isInHead)
        }
    }

    @Test func pipelinedRequestsAndBodiesAreFollowed() {
        var framing = RequestFraming()
        let two = bytes("POST /login HTTP/1.1\r\nContent-Length: 5\r\n\r\nabcdeGET / HTTP/1.1\r\n\r\nGET /x HTTP/1.1\r\n")
        // Two requests whole, a third begun: its deadline starts.
        #expect(framing.received(two) == .forward(.start))
        #expect(framing.received(bytes("\r\n")) == .forward(.cancel))
        // A body split across reads is skipped, not read as a head.
        #expect(framing.received(bytes("POST / HTTP/1.1\r\ncontent-length: 10\r\n\r\n12345")) == .forward(.keep))
        #expect(framing.phase == .body(remaining: 5))
        #expect(framing.received(bytes("\r\n\r\n\r")) == .forward(.keep))
        #expect(framing.phase == .head(received: 0))
    }

    @Test func lateOversizedChunkedAndOverlongRequestsAreRefused() {
        var slow = RequestFraming()
        #expect(slow.received(bytes("GET / HTTP/1.1\r\nX: ")) == .forward(.start))
        #expect(slow.deadlinePassed() == .refuse(status: 408, reason: "request header not received in time"))
        #expect(slow.received(bytes("y\r\n\r\n")) == .refuse(status: 0, reason: "closed"))

        var long = RequestFraming()
        #expect(long.received([UInt8](repeating: 65, count: 16 * 1024)) == .forward(.start))
        #expect(long.received([65]) == .refuse(status: 431, reason: "request header fields too large"))

        var body = RequestFraming()
        #expect(body.received(bytes("POST / HTTP/1.1\r\nContent-Length: 65537\r\n\r\n")) == .refuse(status: 413, reason: "request body too large"))
        var chunked = RequestFraming()
        #expect(chunked.received(bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")) == .refuse(status: 501, reason: "chunked request bodies are not accepted"))
        var twice = RequestFraming()
        #expect(twice.received(bytes("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")) == .refuse(status: 400, reason: "malformed Content-Length"))
        var signed = RequestFraming()
        #expect(signed.received(bytes("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n")) == .refuse(status: 400, reason: "malformed Content-Length"))
    }

    @Test func anIdleConnectionIsNotALateHeadAndAnUpgradePassesForGood() {
        var idle = RequestFraming()
        #expect(idle.received(bytes("\r\n")) == .forward(.keep))
        #expect(idle.deadlinePassed() == nil)

        var socket = RequestFraming()
        #expect(socket.received(bytes("GET /ws/live/imu0 HTTP/1.1\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n")) == .forward(.start))
        #expect(socket.received(bytes("\r\n")) == .forward(.cancel))
        #expect(socket.phase == .passing)
        #expect(socket.received([UInt8](repeating: 0x81, count: 100_000)) == .forward(.keep))
        #expect(socket.deadlinePassed() == nil)
    }
}
