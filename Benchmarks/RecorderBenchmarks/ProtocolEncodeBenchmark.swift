import Foundation
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderTestSupport

/// The control plane's JSON on a step boundary (`BENCH_ONLY=protocol`): a `step.start`'s params
/// as the client writes them, the daemon's `StepResult` reply, the client reading that reply, and
/// a 20-step manifest as the persistence queue writes it — by recorderd's `JSONTextEncoder`,
/// `JSONParser` and `JSONValueDecoder`, and, as the peer in the same run, by Foundation's
/// `JSONEncoder`/`JSONDecoder` set up as before (`TaskResult.makeEncoder`, the client's
/// `JSONRPCMessage` decode). `BENCH_PROTOCOL_WHICH=ours|foundation` runs one side only and
/// `BENCH_PROTOCOL_ROW=params|reply|read|manifest` one row (for instruction counts under
/// `valgrind --tool=callgrind`: the difference of two runs' `N`).
enum ProtocolEncodeBenchmark {
    static func manifest() -> TaskResult {
        let start = Date(timeIntervalSince1970: 1_795_000_000.25)
        let t0 = 12_345.678_901_234
        var result = TaskResult(taskIdentifier: "bench", taskRunUUID: UUID(uuidString: "3F2504E0-4F89-41D3-9A0C-0305E82C3301")!, startDate: start)
        result.stepHistory = (0..<20).map { i in
            StepHistoryEntry(stepPath: "bench/step\(i)", startDate: start.addingTimeInterval(Double(i)), startUptime: t0 + Double(i),
                             endDate: start.addingTimeInterval(Double(i) + 0.5), endUptime: t0 + Double(i) + 0.5)
        }
        var motion = FileResult(identifier: "m", relativePath: "m.jsonl", device: "imu0", startDate: start, startUptime: t0,
                                units: ["accelerometer": "g", "gyro": "rad/s"])
        motion.sampleCount = 2_000
        motion.frequency = 100
        result.asyncResults = [.file(motion)]
        return result
    }

    static func time(_ n: Int, _ body: () -> Bool) -> String {
        let t0 = Date()
        var ok = 0
        for _ in 0..<n where body() { ok += 1 }
        precondition(ok == n, "a round failed")
        return String(format: "%.2f µs", Date().timeIntervalSince(t0) / Double(n) * 1e6)
    }

    static func run() {
        let which = ProcessInfo.processInfo.environment["BENCH_PROTOCOL_WHICH"]
        let only = ProcessInfo.processInfo.environment["BENCH_PROTOCOL_ROW"]
        let n = Int(ProcessInfo.processInfo.environment["BENCH_PROTOCOL_N"] ?? "") ?? 20_000
        let params = StepParams(taskRunUUID: UUID(uuidString: "3F2504E0-4F89-41D3-9A0C-0305E82C3301")!, stepPath: "gait-balance/walking.outbound")
        let reply = StepResult(uptime: 12_345.678_901_234, startedRecorders: [], stoppedRecorders: [])
        let replyLine = Array(#"{"jsonrpc":"2.0","id":42,"result":{"startedRecorders":[],"stoppedRecorders":[],"uptime":12345.678901234}}"#.utf8)
        let result = manifest()
        var rows: [(String, String, String)] = []
        func row(_ name: String, ours: () -> Bool, foundation: () -> Bool) {
            guard only == nil || name.hasPrefix(["params": "step.start", "reply": "StepResult reply, encoded", "read": "StepResult reply, read",
                                                 "manifest": "20-step"][only!] ?? "?") else { return }
            rows.append((name, which == "foundation" ? "-" : time(n, ours), which == "ours" ? "-" : time(n, foundation)))
        }
        row("step.start params, encoded", ours: { (try? JSONTextEncoder().encode(params)) != nil },
            foundation: { (try? JSONEncoder().encode(params)) != nil })
        row("StepResult reply, encoded", ours: { (try? JSONTextEncoder().encode(reply)) != nil },
            foundation: { (try? TaskResult.makeEncoder().encode(reply)) != nil })
        row("StepResult reply, read by the client", ours: {
            guard let message = try? JSONRPCMessage.parse(line: replyLine) else { return false }
            return (try? JSONValueDecoder().decode(StepResult.self, from: message.result ?? .null)) != nil
        }, foundation: {
            guard let message = try? JSONDecoder().decode(FoundationRPCMessage.self, from: Data(replyLine)),
                  let data = try? JSONEncoder().encode(message.result ?? .null) else { return false }
            return (try? TaskResult.makeDecoder().decode(StepResult.self, from: data)) != nil
        })
        row("20-step manifest, pretty", ours: { (try? JSONTextEncoder(prettyPrinted: true).encode(result)) != nil },
            foundation: { (try? TaskResult.makeEncoder(pretty: true).encode(result)) != nil })
        for (name, ours, foundation) in rows {
            Benchmarks.say("protocol \(name): recorderd \(ours), Foundation \(foundation)")
        }
    }
}
