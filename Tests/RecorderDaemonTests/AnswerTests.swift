import Foundation
import RecorderClient
import RecorderModel
import RecorderTestSupport
import Testing

/// Answers with `step.finish` over the real socket: kept in the step's history entry; bad ones are
/// `-32602` naming the JSON path and leave the step (and its recorder) as they were.
@Suite("Step answers (in-process server, real socket)")
struct AnswerTests {
    @Test(.timeLimit(.minutes(2)), .ownThread)
    func answersAreKeptWithTheirStepAndBadOnesLeaveTheStepOpen() async throws {
        let d = try await TestDaemon.inProcess(speed: 4)
        let client = try await d.client()
        let run = try await client.startTask(identifier: "q", asyncActions: [.motion("motion", startStepIdentifier: "pain", stopStepIdentifier: "pain")])
        try await run.startStep("q/pain")
        let raw = try RawConnection(socketPath: d.socket)
        let uuid = run.taskRunUUID.uuidString
        // A bad answer: refused with the path; the step and its recorder carry on.
        try await raw.send(#"{"jsonrpc": "2.0", "id": 1, "method": "step.finish", "params": {"taskRunUUID": "\#(uuid)", "stepPath": "q/pain", "results": [{"identifier": "pain", "answerType": "scale", "value": "severe"}]}}"# + "\n")
        let refused = try #require(try await raw.response())
        let error = try #require(refused["error"] as? [String: Any])
        #expect(error["code"] as? Int == -32602)
        #expect((error["message"] as? String)?.contains("params.results[0].value: expected a number (answerType scale), found a string") == true, "\(error)")
        // step.start takes no answers.
        try await raw.send(#"{"jsonrpc": "2.0", "id": 2, "method": "step.start", "params": {"taskRunUUID": "\#(uuid)", "stepPath": "q/other", "results": []}}"# + "\n")
        let startRefused = try #require(try await raw.response())
        #expect(((startRefused["error"] as? [String: Any])?["message"] as? String)?.contains("answers are sent with step.finish") == true, "\(startRefused)")
        let status = try await client.status()
        #expect(status.taskRuns.first?.currentStepPath == "q/pain" && status.taskRuns.first?.recording == ["motion"], "\(status.taskRuns)")
        try await awaitRecords(client, count: 100)

        // The good answers, through RecorderClient.
        let answers = [AnswerResult(identifier: "pain", answerType: .scale, value: .number(7)),
                       AnswerResult(identifier: "temperature", answerType: .decimal, value: .number(36.6), unit: "Cel"),
                       AnswerResult(identifier: "mood", answerType: .choice, value: .string("LA6569-3"), system: "http://loinc.org", display: "Several days")]
        let finished = try await run.finishStep("q/pain", results: answers)
        #expect(finished.stoppedRecorders == ["motion"])
        let result = try await run.finish()
        #expect(result.stepHistory.first?.results == answers)
        // On disk, in the manifest, as sent.
        let manifest = try TaskResult.makeDecoder().decode(TaskResult.self, from: Data(contentsOf: URL(fileURLWithPath: run.runDirectory + "/taskResult.json")))
        #expect(manifest.stepHistory.first?.results == answers)
        #expect(try #require(manifest.asyncResults.first?.file).sampleCount > 0)
        let text = try String(contentsOfFile: run.runDirectory + "/taskResult.json", encoding: .utf8)
        #expect(text.contains(#""answerType" : "scale""#) && text.contains(#""unit" : "Cel""#))
        client.close()
        try await d.stop()
    }
}
