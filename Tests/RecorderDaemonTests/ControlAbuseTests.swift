import Foundation
import RecorderClient
@testable import RecorderDaemon
import RecorderModel
import RecorderTestSupport
import Testing
import RecorderConfiguration
import RecorderProtocol

/// What an adversarial client tries over a real socket (in-process server): every attempt gets a
/// clear error, the daemon stays up and bounded, and a recording running meanwhile loses nothing.
@Suite("Control protocol under abuse", .timeLimit(.minutes(2)))
struct ControlAbuseTests {
    /// Starts a recording that the test checks sample for sample at the end.
    func startRecording(_ client: RecorderClient) async throws -> TaskRunHandle {
        try await client.startTask(identifier: "t", asyncActions: [.motion("m")])
    }

    func checkRecording(_ run: TaskRunHandle) async throws {
        let result = try await run.finish()
        let file = try #require(result.asyncResults.first?.file)
        #expect(file.droppedSamples == 0 && file.gapCount == 0)
        let outcome = ReplayCheck.compare(try Fixtures.records(run.runDirectory + "/m.jsonl"), rows: try Fixtures.rows(Fixtures.shortWalk))
        #expect(outcome.mismatches.isEmpty && outcome.dropped == 0, "\(outcome.mismatches.prefix(3))")
        #expect(outcome.samples > 50)
    }

    func errorOf(_ raw: RawConnection, _ line: String) async throws -> [String: Any] {
        try await raw.send(line + "\n")
        let response = try #require(try await raw.response(), "\(line.prefix(200))")
        return try #require(response["error"] as? [String: Any], "\(response)")
    }

    /// `stream.subscribe` with a rate of 1e-20 used to trap converting a huge Double to Int and
    /// take every recording down with the daemon.
    @Test(.ownThread) func liveRatesAtTheExtremesAreRefusedAndTheDaemonLives() async throws {
        let d = try await TestDaemon.inProcess(speed: 2)
        let client = try await d.client()
        let run = try await startRecording(client)
        let raw = try RawConnection(socketPath: d.socket)
        for rate in ["1e-20", "5e-324", "0", "-1", "1e300", "\"fast\""] {
            let error = try await errorOf(raw, #"{"jsonrpc":"2.0","id":1,"method":"stream.subscribe","params":{"device":"imu0","rate":\#(rate)}}"#)
            #expect(error["code"] as? Int == -32602)
            let expected = rate == "\"fast\"" ? "invalid params: params.rate: expected a number"
                : "invalid params: params.rate: expected a rate in Hz >= 0.001 and <= 100000"
            #expect(error["message"] as? String == expected)
        }
        // The lowest rate allowed works.
        try await raw.send(#"{"jsonrpc":"2.0","id":2,"method":"stream.subscribe","params":{"device":"imu0","rate":0.001}}"# + "\n")
        #expect((try await raw.response()?["result"] as? [String: Any])?["subscription"] != nil)
        try await awaitRecords(client, count: 100)
        try await checkRecording(run)
        client.close()
        try await d.stop()
    }

    /// Ids above 2^53 used to come back changed, and Int64.max was refused.
    @Test(.ownThread) func requestIDsComeBackExactlyAsSent() async throws {
        let d = try await TestDaemon.inProcess()
        let raw = try RawConnection(socketPath: d.socket)
        for id in ["9007199254740993", "9223372036854775807", "-9223372036854775808", "123456789012345678901234567890", "1e3", "-0", "7.25"] {
            try await raw.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"daemon.status"}"# + "\n")
            let line = try #require(try await raw.readLine())
            #expect(line.hasPrefix(#"{"jsonrpc":"2.0","id":\#(id),"result":"#), "\(line.prefix(80))")
            try await raw.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"no.such"}"# + "\n")
            let error = try #require(try await raw.readLine())
            #expect(error.hasPrefix(#"{"jsonrpc":"2.0","id":\#(id),"error":"#), "\(error.prefix(80))")
        }
        try await d.stop()
    }

    /// An out-of-range subscription id used to get "malformed JSON" without a path.
    @Test(.ownThread) func outOfRangeIntegersNameTheirPath() async throws {
        let d = try await TestDaemon.inProcess()
        let raw = try RawConnection(socketPath: d.socket)
        for value in ["1e300", "9223372036854775808", "1.5"] {
            let error = try await errorOf(raw, #"{"jsonrpc":"2.0","id":1,"method":"stream.unsubscribe","params":{"subscription":\#(value)}}"#)
            #expect(error["message"] as? String == "invalid params: params.subscription: expected an integer between -9007199254740992 and 9007199254740992")
        }
        let error = try await errorOf(raw, #"{"jsonrpc":"2.0","id":1,"method":"task.cancel","params":{"taskRunUUID":"\#(UUID().uuidString)","keepFiles":1}}"#)
        #expect(error["message"] as? String == "invalid params: params.keepFiles: expected a boolean")
        try await d.stop()
    }

    /// A 300 KB step path used to be copied into every record; control characters were stored.
    @Test(.ownThread) func stepPathsAreBoundedAndPlainText() async throws {
        let d = try await TestDaemon.inProcess(speed: 2)
        let client = try await d.client()
        let run = try await startRecording(client)
        let raw = try RawConnection(socketPath: d.socket)
        let uuid = run.taskRunUUID.uuidString
        let long = String(repeating: "s", count: 300_000)
        var error = try await errorOf(raw, #"{"jsonrpc":"2.0","id":1,"method":"step.start","params":{"taskRunUUID":"\#(uuid)","stepPath":"\#(long)"}}"#)
        #expect(error["message"] as? String == "invalid params: params.stepPath: expected a step path of at most 256 bytes, found 300000")
        error = try await errorOf(raw, #"{"jsonrpc":"2.0","id":2,"method":"step.start","params":{"taskRunUUID":"\#(uuid)","stepPath":"t/\u001b[2Jwalk"}}"#)
        #expect(error["message"] as? String == "invalid params: params.stepPath: control character U+001B in the step path")
        try await run.startStep("t/walk")
        try await awaitRecords(client, count: 100)
        try await run.finishStep("t/walk")
        let paths = Set(try Fixtures.records(run.runDirectory + "/m.jsonl").compactMap(\.stepPath))
        #expect(paths == ["t", "t/walk"])
        try await checkRecording(run)
        client.close()
        try await d.stop()
    }

    @Test(.ownThread) func connectionsBeyondTheLimitAreRefusedClearly() async throws {
        let d = try await TestDaemon.inProcess(limits: DaemonLimits(connections: 4, taskRuns: 16, recordersPerRun: 16))
        var open: [RawConnection] = []
        for _ in 0..<4 {
            let raw = try RawConnection(socketPath: d.socket)
            try await raw.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"# + "\n")
            #expect(try await raw.response()?["result"] != nil)
            open.append(raw)
        }
        let refused = try RawConnection(socketPath: d.socket)
        let error = try #require(try await refused.response()?["error"] as? [String: Any])
        #expect(error["code"] as? Int == RPCErrorCode.limitReached.rawValue)
        #expect(error["message"] as? String == "too many connections: recorderd serves at most 4 at once")
        #expect(try await refused.readLine() == nil, "then EOF")
        // A connection that ends frees its place.
        open.removeLast()
        var admitted: [String: Any]?
        for _ in 0..<200 where admitted == nil {
            let again = try RawConnection(socketPath: d.socket)
            try await again.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"# + "\n")
            let response = try await again.response()
            if response?["result"] != nil { admitted = response } else { await Task.yield() }
        }
        #expect(admitted != nil)
        try await d.stop()
    }

    @Test(.ownThread) func subscriptionsOfOneConnectionAreLimited() async throws {
        let d = try await TestDaemon.inProcess()
        let raw = try RawConnection(socketPath: d.socket)
        for i in 0..<DaemonLimits.subscriptionsPerConnection {
            try await raw.send(#"{"jsonrpc":"2.0","id":\#(i),"method":"stream.subscribe","params":{"device":"imu0","rate":1}}"# + "\n")
            #expect(try await raw.response()?["result"] != nil)
        }
        let error = try await errorOf(raw, #"{"jsonrpc":"2.0","id":99,"method":"stream.subscribe","params":{"device":"imu0"}}"#)
        #expect(error["code"] as? Int == RPCErrorCode.limitReached.rawValue)
        try await d.stop()
    }

    /// A client that sends requests and never reads the replies used to grow the daemon without
    /// bound (every line read and queued). Now the daemon stops reading it: the client can push
    /// no more than the socket buffers, one read and one line, however long it tries.
    @Test(.ownThread) func aClientThatNeverReadsItsRepliesIsNoLongerRead() async throws {
        let d = try await TestDaemon.inProcess(speed: 2)
        let client = try await d.client()
        let run = try await startRecording(client)
        let flood = try RawConnection(socketPath: d.socket)
        let request = Array((#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"# + "\n").utf8)
        let batch = Array([[UInt8]](repeating: request, count: 1000).joined())
        // Push for up to 64 MiB, non-blocking; stop once the daemon has taken nothing for 1 s.
        let pushed: Int = try await offPool {
            var total = 0
            var stalledSince: Deadline?
            while total < 64 << 20 {
                let n = batch.withUnsafeBytes { Foundation.send(flood.fd, $0.baseAddress!, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
                if n > 0 {
                    total += n
                    stalledSince = nil
                } else {
                    if let since = stalledSince {
                        if since.hasPassed { break }
                    } else {
                        stalledSince = Deadline(seconds: 1)
                    }
                    var p = pollfd(fd: flood.fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, 100)
                }
            }
            return total
        }
        #expect(pushed < 8 << 20, "the daemon took \(pushed) bytes from a client that reads nothing")
        #expect(d.daemon.server.budget.total <= ControlLine.maximumLength)
        // Others are served meanwhile, and the recording is untouched.
        #expect(try await client.status().taskRuns.count == 1)
        try await awaitRecords(client, count: 50)
        try await checkRecording(run)
        client.close()
        try await d.stop()
    }

    /// Many connections each holding most of a long line cannot add up to more than the shared
    /// input budget: the one that would overdraw it is refused.
    @Test(.ownThread) func unfinishedLinesOfAllConnectionsShareOneBudget() async throws {
        // Lines may take long here: a loaded sanitizer build reads ~2 MB/s, and no line may time
        // out (giving its bytes back) before the budget is overdrawn.
        let d = try await TestDaemon.inProcess(limits: DaemonLimits(lineTimeout: 600))
        let part = [UInt8](repeating: UInt8(ascii: " "), count: 1_000_000)
        var holders: [RawConnection] = []
        var refusal: [String: Any]?
        // The connection that overdraws the budget: before it, a refusal would be too early (each
        // is checked briefly); from it on, the refusal must come (waited for up to 60 s).
        let overdrawing = DaemonLimits.inputBudget / part.count + 1
        for _ in 0..<24 where refusal == nil {
            let raw = try RawConnection(socketPath: d.socket)
            try await raw.send(part)
            holders.append(raw)
            // Any connection that has an answer: the daemon answers once a line is done (never),
            // or refuses one.
            let toPoll = holders.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let timeout: Int32 = holders.count >= overdrawing ? 60_000 : 100
            let fds = try await offPool {
                var polled = toPoll
                _ = poll(&polled, nfds_t(polled.count), timeout)
                return polled
            }
            for index in fds.indices where fds[index].revents & Int16(POLLIN) != 0 && refusal == nil {
                let error = try await holders[index].response(timeout: 1)?["error"] as? [String: Any]
                if (error?["message"] as? String)?.contains("unfinished requests from all clients") == true { refusal = error }
            }
        }
        let error = try #require(refusal, "24 MB of unfinished lines were all held")
        #expect(error["code"] as? Int == RPCErrorCode.requestTooLarge.rawValue)
        #expect((error["message"] as? String)?.contains("unfinished requests from all clients") == true)
        #expect(d.daemon.server.budget.total <= DaemonLimits.inputBudget)
        #expect(holders.count >= DaemonLimits.inputBudget / part.count)
        holders.removeAll()
        // Closed connections give their bytes back.
        let status = try RawConnection(socketPath: d.socket)
        var released = false
        for _ in 0..<500 where !released {
            try await status.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"# + "\n")
            _ = try await status.response()
            released = d.daemon.server.budget.total == 0
        }
        #expect(released)
        try await d.stop()
    }

    /// A client that sends its requests and then shuts its side down gets every answer.

    /// A request line that is not finished within `limits.lineTimeout` is refused and its
    /// connection closed; the daemon serves others meanwhile.
    @Test(.ownThread) func aLineNotFinishedInTimeIsRefused() async throws {
        let d = try await TestDaemon.inProcess(limits: DaemonLimits(lineTimeout: 1))
        let slow = try RawConnection(socketPath: d.socket)
        let started = Stopwatch()
        try await slow.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.st"#)
        let error = try #require(try await slow.response(timeout: 20)?["error"] as? [String: Any])
        let waited = started.seconds
        #expect(error["code"] as? Int == RPCErrorCode.requestTooLarge.rawValue)
        #expect(error["message"] as? String == "request line not finished within 1 s; closing the connection")
        #expect(waited >= 0.9, "refused after \(waited) s")
        #expect(try await slow.response(timeout: 20) == nil)
        let client = try await d.client()
        #expect(try await client.status().taskRuns.isEmpty)
        client.close()
        try await d.stop()
    }
    @Test(.ownThread) func aHalfClosedClientGetsEveryAnswer() async throws {
        let d = try await TestDaemon.inProcess()
        let raw = try RawConnection(socketPath: d.socket)
        try await raw.send((1...3).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"daemon.status"}"# + "\n" }.joined())
        shutdown(raw.fd, Int32(SHUT_WR))
        for id in 1...3 { #expect(try await raw.response()?["id"] as? Int == id) }
        #expect(try await raw.readLine() == nil)
        try await d.stop()
    }
}
