import Foundation
import RecorderTestSupport
import Testing

/// Clients that hold the page's connections without finishing their requests, against the real
/// recorderd and its services process: 200 connections from another address each sending an
/// unfinished 100 KB request line, or an unfinished head kept open, no longer lock a visitor out.
@Suite("The web page under slow clients", .serialized)
struct SlowClientTests {
    /// Another client than the visitor (127.0.0.1): the whole of 127.0.0.0/8 is loopback.
    static let attacker = "127.0.0.2"

    @Test(.timeLimit(.minutes(3)), .ownThread)
    func unfinishedHundredKilobyteRequestLinesAreRefusedAndTheVisitorGetsIn() async throws {
        let web = try await WebHarness.start()
        defer { Task { _ = try? await web.stop() } }
        let line = Array("GET /devices?".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 100 * 1024)
        let answers = try await offPool { () -> [String] in
            var sockets: [Int32] = []
            defer { for fd in sockets { close(fd) } }
            for _ in 0..<200 {
                guard let fd = LoopbackTCP.connect(port: web.port, from: Self.attacker) else { continue }
                sockets.append(fd)
                _ = line.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            }
            // Each is answered (the line is over the head's limit, or the address holds too many)
            // rather than left waiting.
            return sockets.map { LoopbackTCP.statusLine($0, timeout: 60) ?? "no answer" }
        }
        #expect(answers.count == 200)
        #expect(answers.allSatisfy { $0.hasPrefix("HTTP/1.1 431") || $0.hasPrefix("HTTP/1.1 503") }, "\(Set(answers))")
        #expect(answers.contains { $0.hasPrefix("HTTP/1.1 431") })
        // (How long the visitor waited is printed, not asserted: a figure, not a timed test.)
        let started = ContinuousClock.now
        let visitor = try await offPool { LoopbackTCP.statusLine(port: web.port, path: "/devices", timeout: 60) }
        print("SLOW visitor answered in \(ContinuousClock.now - started)")
        #expect(visitor == "HTTP/1.1 200 OK")
    }

    @Test(.timeLimit(.minutes(3)), .ownThread)
    func unfinishedHeadsHeldOpenLeaveRoomForAVisitorAndTimeOut() async throws {
        let web = try await WebHarness.start()
        defer { Task { _ = try? await web.stop() } }
        let head = Array("GET /devices HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
        let sockets = try await offPool { () -> [Int32] in
            (0..<200).compactMap { _ in
                guard let fd = LoopbackTCP.connect(port: web.port, from: Self.attacker) else { return nil }
                _ = head.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
                return fd
            }
        }
        defer { for fd in sockets { close(fd) } }
        #expect(sockets.count == 200)
        // While they hold their connections, a visitor from another address gets the page.
        // (How long the visitor waited is printed, not asserted: a figure, not a timed test.)
        let started = ContinuousClock.now
        let visitor = try await offPool { LoopbackTCP.statusLine(port: web.port, path: "/devices", timeout: 60) }
        print("SLOW visitor answered in \(ContinuousClock.now - started)")
        #expect(visitor == "HTTP/1.1 200 OK")
        // ... and the address's share of them had not been answered by then.
        let unanswered = sockets.filter { fd in
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&p, 1, 0) == 0
        }.count
        #expect(unanswered >= 16, "only \(unanswered) connections were still held when the visitor was answered")
        // Every one is answered: past the address's share refused (503), the share told its head
        // came too late (408): 16, or more when some were still in the backlog as the first
        // holders timed out (a loaded machine).
        let answers = try await offPool { sockets.map { LoopbackTCP.statusLine($0, timeout: 60) ?? "no answer" } }
        let refused = answers.filter { $0.hasPrefix("HTTP/1.1 503") }.count
        let late = answers.filter { $0.hasPrefix("HTTP/1.1 408") }.count
        #expect(refused + late == 200, "\(Set(answers))")
        #expect(late >= 16 && refused >= 100, "\(late) timed out, \(refused) refused")
    }
}
