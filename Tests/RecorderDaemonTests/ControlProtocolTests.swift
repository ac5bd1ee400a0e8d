import Foundation
@testable import RecorderClient
import RecorderDaemon
import RecorderEngine
import RecorderModel
import RecorderTestSupport
import Testing
import RecorderConfiguration
import RecorderJSON
import RecorderProtocol

@Suite("Control protocol (in-process server, real socket)")
struct ControlProtocolTests {
    @Test(.ownThread) func statusAndDevices() async throws {
        let d = try await TestDaemon.inProcess()
        let client = try await d.client()
        let status = try await client.status()
        #expect(status.version == RecorderVersion.string)
        #expect(status.pid == getpid())
        #expect(status.taskRuns.isEmpty)
        let devices = try await client.devices()
        #expect(devices.count == 1)
        #expect(devices[0].name == "imu0" && devices[0].kind == "replay" && devices[0].state == .available)
        #expect(devices[0].sensorTypes == [.accelerometer, .gyro])
        #expect(devices[0].rate == 100)
        var info = stat()
        #expect(stat(d.socket, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        client.close()
        try await d.stop()
    }

    @Test(.ownThread) func aTaskRunThroughTheClientRecordsTheReplayedData() async throws {
        let d = try await TestDaemon.inProcess(speed: 2)
        let client = try await d.client()
        let run = try await client.startTask(identifier: "walk", asyncActions: [
            .motion("motion", startStepIdentifier: "walking.outbound", stopStepIdentifier: "walking.outbound"),
        ])
        #expect(run.errors.isEmpty)
        let started = try await run.startStep("walk/walking.outbound")
        #expect(started.startedRecorders == ["motion"])
        let status = try await client.status()
        #expect(status.taskRuns.map(\.taskRunUUID) == [run.taskRunUUID])
        #expect(status.taskRuns.first?.recording == ["motion"])
        try await awaitRecords(client, count: 300)
        let stopped = try await run.finishStep("walk/walking.outbound")
        #expect(stopped.stoppedRecorders == ["motion"])
        let result = try await run.finish()
        #expect(result.status == .finished)
        let file = try #require(result.asyncResults.first?.file)
        let records = try Fixtures.records(run.runDirectory + "/motion.jsonl")
        #expect(file.sampleCount == records.filter(\.isSample).count)
        #expect(file.sampleCount >= 600)
        let outcome = ReplayCheck.compare(records, rows: try Fixtures.rows(Fixtures.shortWalk))
        #expect(outcome.mismatches.count == 0, "\(outcome.mismatches.prefix(3))")
        #expect(outcome.dropped == 0)
        client.close()
        try await d.stop()
    }

    @Test(.ownThread) func typedErrorsCarryTheirCodes() async throws {
        let d = try await TestDaemon.inProcess()
        let client = try await d.client()
        let unknown = UUID()
        await #expect(throws: RecorderClientError.rpc(RPCError(.unknownTaskRun, "unknown task run \(unknown.uuidString)"))) {
            _ = try await client.call(.taskFinish, TaskRunParams(taskRunUUID: unknown), as: TaskResult.self)
        }
        let run = try await client.startTask(identifier: "t", asyncActions: [])
        do {
            try await run.finishStep("t/never")
            Issue.record("finishing a step that never started succeeded")
        } catch {
            #expect(error.code == RPCErrorCode.stepOrder.rawValue)
        }
        do {
            _ = try await client.subscribe(device: "nope")
            Issue.record("subscribed to an unknown device")
        } catch {
            #expect(error.code == RPCErrorCode.unknownDevice.rawValue)
        }
        do {
            _ = try await client.startTask(identifier: "../etc", asyncActions: [])
            Issue.record("accepted a task identifier with a path")
        } catch {
            #expect(error.code == RPCErrorCode.invalidConfiguration.rawValue)
        }
        _ = try await run.finish()
        client.close()
        try await d.stop()
    }

    /// Step boundaries of known runs are answered from the run's queue, everything else by the
    /// connection's request task: requests sent together still come back in order, notifications
    /// take effect in order, errors keep their codes, and a boundary too long to parse on the
    /// event loop (answers over 4 KiB) takes the other path with the same outcome.
    @Test(.ownThread) func pipelinedRequestsOfBothPathsAreAnsweredInOrder() async throws {
        let d = try await TestDaemon.inProcess()
        let client = try await d.client()
        let run = try await client.startTask(identifier: "t", asyncActions: [])
        let uuid = run.taskRunUUID.uuidString
        func step(_ method: String, _ id: String?, _ path: String, results: String? = nil, run: String = uuid) -> String {
            let results = results.map { #","results":[{"identifier":"q","answerType":"string","value":"\#($0)"}]"# } ?? ""
            let id = id.map { #""id":\#($0),"# } ?? ""
            return #"{"jsonrpc":"2.0",\#(id)"method":"\#(method)","params":{"taskRunUUID":"\#(run)","stepPath":"\#(path)"\#(results)}}"#
        }
        let long = String(repeating: "x", count: 6000)
        let lines = [
            step("step.start", "1", "t/a"),
            step("step.finish", nil, "t/a"),                   // a notification: no answer
            step("step.start", #""two""#, "t/b"),
            step("step.finish", "3", "t/never"),               // out of order
            #"{"jsonrpc":"2.0","id":4,"method":"daemon.status","params":{"disk":false}}"#,
            step("step.start", "5", "t/c", results: "no"),     // answers belong to step.finish
            step("step.start", "6", "t/c", run: UUID().uuidString),
            step("step.finish", "7", "t/b", results: long),   // over 4 KiB: parsed by the request task
        ]
        let raw = try RawConnection(socketPath: d.socket)
        try await raw.send(lines.joined(separator: "\n") + "\n")
        var responses: [[String: Any]] = []
        for _ in 0..<7 { responses.append(try #require(try await raw.response())) }
        #expect(responses.map { "\($0["id"]!)" } == ["1", "two", "3", "4", "5", "6", "7"])
        #expect(responses[0]["result"] != nil && responses[1]["result"] != nil && responses[6]["result"] != nil)
        func code(_ r: [String: Any]) -> Int? { (r["error"] as? [String: Any])?["code"] as? Int }
        #expect(code(responses[2]) == RPCErrorCode.stepOrder.rawValue)
        #expect(code(responses[4]) == RPCErrorCode.invalidParams.rawValue)
        #expect(code(responses[5]) == RPCErrorCode.unknownTaskRun.rawValue)
        // daemon.status, answered by the request task, saw the boundaries before it.
        let status = try #require(responses[3]["result"] as? [String: Any])
        let active = try #require((status["taskRuns"] as? [[String: Any]])?.first)
        #expect(active["currentStepPath"] as? String == "t/b")
        let result = try await run.finish()
        #expect(result.stepHistory.map(\.stepPath) == ["t/a", "t/b"])
        #expect(result.stepHistory.allSatisfy { $0.endUptime != nil })
        #expect(result.stepHistory.last?.results?.first?.value == .string(long))
        client.close()
        try await d.stop()
    }

    /// The client writes a request line itself (`RecorderClient.requestLine`): a method and params
    /// with quotes, backslashes and control characters reach the daemon's strict parser as sent.
    @Test(.ownThread) func aRequestLineWithCharactersToEscapeIsReadAsSent() async throws {
        let method = "no.\"such\\method\n\u{01}é"
        let params = JSONValue.object(["note": .string("a \"b\"\n\t\u{1F}/c"), "n": .number(-2.5e-7)])
        let line = try RecorderClient.requestLine(id: 7, method: method, encodedParams: try JSONTextEncoder().encode(params))
        #expect(line.last == UInt8(ascii: "\n") && line.dropLast().firstIndex(of: UInt8(ascii: "\n")) == nil)
        let request = try JSONRPCRequest.parse(line: Array(line.dropLast()))
        #expect(request.id == .number("7") && request.method == method && request.params == params)
        // And through a daemon: a raw call with params goes out on the same line.
        let d = try await TestDaemon.inProcess(speed: 2)
        let client = try await d.client()
        let status = try await client.send(method: ControlMethod.daemonStatus.rawValue, params: .object(["disk": .bool(false)]))
        #expect(status.error == nil && status.result?["taskRuns"] != nil)
        let unknown = try await client.send(method: "no.such", params: nil)
        #expect(unknown.error?.code == RPCErrorCode.methodNotFound.rawValue)
        client.close()
        try await d.stop()
    }

    @Test(.ownThread) func malformedLinesGetErrorsWhileARecordingContinuesUndisturbed() async throws {
        let d = try await TestDaemon.inProcess(speed: 2)
        let client = try await d.client()
        let run = try await client.startTask(identifier: "t", asyncActions: [.motion("m")])
        let raw = try RawConnection(socketPath: d.socket)
        let bad: [(String, Int)] = [
            ("{not json", -32700),
            ("[]", -32600),
            ("\"just a string\"", -32600),
            (#"{"jsonrpc":"2.0","id":1,"method":"no.such"}"#, -32601),
            (#"{"jsonrpc":"2.0","id":2,"method":"task.start","params":{"taskIdentifier":5}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":3,"method":"task.start","params":{"taskIdentifier":"t","asyncActions":[{"identifier":"x","type":"motion","frequency":"high"}]}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":4,"method":"step.start","params":{"taskRunUUID":"not-a-uuid","stepPath":"a"}}"#, -32602),
            (#"{"jsonrpc":"2.0","id":5,"method":"stream.unsubscribe","params":{"subscription":99}}"#, RPCErrorCode.unknownSubscription.rawValue),
            (#"{"jsonrpc":"2.0","id":6,"method":"step.finish","params":{"taskRunUUID":"\#(run.taskRunUUID.uuidString)","stepPath":"x"}}"#, RPCErrorCode.stepOrder.rawValue),
        ]
        for (line, code) in bad {
            try await raw.send(line + "\n")
            let response = try #require(try await raw.response(), "\(line)")
            let error = try #require(response["error"] as? [String: Any], "\(line)")
            #expect(error["code"] as? Int == code, "\(line): \(error)")
            #expect((error["message"] as? String)?.isEmpty == false)
        }
        try await raw.send([0xFF, 0xFE, 0x00, 0x0A])
        #expect((try await raw.response()?["error"] as? [String: Any])?["code"] as? Int == -32700)
        try await raw.send(#"{"jsonrpc":"2.0","id":3,"method":"task.start","params":{"taskIdentifier":"t","asyncActions":[{"identifier":"x","type":"motion","frequency":"high"}]}}"# + "\n")
        let message = try #require(try await raw.response()?["error"] as? [String: Any])["message"] as? String
        #expect(message == "invalid params: params.asyncActions[0].frequency: expected a number")
        // A notification (no id) gets no answer; the next request is answered: the connection stays usable.
        try await raw.send(#"{"jsonrpc":"2.0","method":"daemon.status"}"# + "\n" + #"{"jsonrpc":"2.0","id":"after","method":"devices.list"}"# + "\r\n")
        let after = try #require(try await raw.response())
        #expect(after["id"] as? String == "after")
        #expect(after["result"] != nil)

        try await awaitRecords(client, count: 200)
        let result = try await run.finish()
        let records = try Fixtures.records(run.runDirectory + "/m.jsonl")
        let outcome = ReplayCheck.compare(records, rows: try Fixtures.rows(Fixtures.shortWalk))
        #expect(outcome.mismatches.count == 0, "\(outcome.mismatches.prefix(3))")
        #expect(result.asyncResults.first?.file?.droppedSamples == 0)
        #expect(outcome.samples >= 200)
        client.close()
        try await d.stop()
    }

    @Test(.ownThread) func aLineOverOneMebibyteIsRefusedAndTheConnectionClosed() async throws {
        let d = try await TestDaemon.inProcess()
        let raw = try RawConnection(socketPath: d.socket)
        let huge = #"{"jsonrpc":"2.0","id":1,"method":"daemon.status","params":{"pad":""# + String(repeating: "x", count: (1 << 20) + 10) + "\"}}\n"
        try await raw.send(huge)
        let response = try #require(try await raw.response())
        #expect((response["error"] as? [String: Any])?["code"] as? Int == RPCErrorCode.requestTooLarge.rawValue)
        #expect(try await raw.readLine() == nil)
        // The daemon still serves others.
        let client = try await d.client()
        #expect(try await client.devices().count == 1)
        client.close()
        try await d.stop()
    }

    @Test(.ownThread) func liveTailDeliversFileRecordsDecimatedToTheRate() async throws {
        let d = try await TestDaemon.inProcess()
        let client = try await d.client()
        let result: SubscribeResult = try await client.call(.streamSubscribe, SubscribeParams(device: "imu0", rate: 25))
        #expect(result.rate == 25 && result.deviceRate == 100)
        let stream = try await client.subscribe(device: "imu0", sensorTypes: [.gyro], rate: 10)
        var records: [Record] = []
        for try await batch in stream {
            records += batch
            if records.count >= 12 { break }
        }
        #expect(records.allSatisfy { $0.sensorType == "gyro" && $0.x != nil && $0.stepPath == nil })
        let uptimes = records.compactMap(\.uptime)
        for (a, b) in zip(uptimes, uptimes.dropFirst()) { #expect(abs((b - a) - 0.1) < 1e-6) }
        client.close()
        try await d.stop()
    }

    @Test(.ownThread) func withoutGpsdALocationRecorderGetsAnErrorMarkerAndTheDaemonStaysHealthy() async throws {
        // A port nothing listens on (bound and closed at once).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        close(fd)
        let port = Double(UInt16(bigEndian: address.sin_port))
        let gps = DeviceConfiguration(name: "gps0", kind: "gpsd", json: .object([
            "name": .string("gps0"), "kind": .string("gpsd"), "port": .number(port)]))
        let d = try await TestDaemon.inProcess(extraDevices: [gps])
        let client = try await d.client()
        let run = try await client.startTask(identifier: "walk", asyncActions: [
            .motion("motion"),
            AsyncActionConfiguration(identifier: "location", options: .distance(DistanceOptions())),
        ])
        #expect(run.errors.isEmpty)
        // The daemon answers and records motion meanwhile.
        try await awaitRecords(client, count: 50)
        let devices = try await client.devices()
        #expect(devices.first { $0.name == "gps0" }?.details?["connection"]?.hasPrefix("not connected") == true)
        let result = try await run.finish()
        let location = try #require(result.asyncResults.compactMap(\.file).first { $0.identifier == "location" })
        #expect(location.errorCount == 1)
        #expect(location.sampleCount == 0)
        let records = try Fixtures.records(run.runDirectory + "/location.jsonl")
        #expect(records.contains { $0.event == "error" && $0.errorDescription?.contains("gpsd not reachable") == true })
        #expect((result.asyncResults.compactMap(\.file).first { $0.identifier == "motion" }?.sampleCount ?? 0) >= 100)
        client.close()
        try await d.stop()
    }

    @Test(.ownThread) func aClientThatDisconnectsLeavesItsRunRecording() async throws {
        let d = try await TestDaemon.inProcess()
        let first = try await d.client()
        let run = try await first.startTask(identifier: "t", asyncActions: [.motion("m")])
        first.close()
        let second = try await d.client()
        #expect(try await second.status().taskRuns.map(\.taskRunUUID) == [run.taskRunUUID])
        let result: TaskResult = try await second.call(.taskFinish, TaskRunParams(taskRunUUID: run.taskRunUUID))
        #expect(result.status == .finished)
        second.close()
        try await d.stop()
    }
}
