import Foundation
import RecorderModel
import RecorderProtocol

/// The cost of reading one request (`BENCH_ONLY=parse`): a `step.start` line and a `task.start`
/// line parsed and their params decoded, by recorderd's strict `JSONParser` + `JSONValueDecoder`
/// and, as the peer in the same run, by Foundation's `JSONDecoder` (what recorderd used before).
/// `BENCH_PARSE_WHICH=ours|foundation` runs one side only (for instruction counts under
/// `valgrind --tool=callgrind`).
enum ParseBenchmark {
    static let step = Array(#"{"jsonrpc":"2.0","id":42,"method":"step.start","params":{"taskRunUUID":"3F2504E0-4F89-41D3-9A0C-0305E82C3301","stepPath":"gait-balance/walking.outbound"}}"#.utf8)
    static let start = Array(#"{"jsonrpc":"2.0","id":7,"method":"task.start","params":{"taskIdentifier":"gait-balance","asyncActions":[{"identifier":"motion","type":"motion","startStepIdentifier":"walking.outbound","stopStepIdentifier":"walking.rest","recorderTypes":["accelerometer","gyro"],"frequency":100},{"identifier":"location","type":"location","saveCoordinates":false}]}}"#.utf8)

    struct FoundationRequest<P: Decodable>: Decodable {
        var jsonrpc: String
        var id: Int64?
        var method: String
        var params: P
    }

    static func ours<P: Decodable>(_ line: [UInt8], _ type: P.Type) -> Bool {
        guard let request = try? JSONRPCRequest.parse(line: line), let params = request.params else { return false }
        return (try? params.decode(P.self)) != nil
    }

    static func foundation<P: Decodable>(_ line: [UInt8], _ type: P.Type) -> Bool {
        (try? JSONDecoder().decode(FoundationRequest<P>.self, from: Data(line))) != nil
    }

    static func run() {
        let which = ProcessInfo.processInfo.environment["BENCH_PARSE_WHICH"]
        let n = Int(ProcessInfo.processInfo.environment["BENCH_PARSE_N"] ?? "") ?? 100_000
        for (name, line) in [("step.start", step), ("task.start", start)] {
            var results: [String] = []
            for side in ["ours", "foundation"] where which == nil || which == side {
                let t0 = Date()
                var ok = 0
                for _ in 0..<n {
                    let parsed = name == "step.start"
                        ? (side == "ours" ? ours(line, StepParams.self) : foundation(line, StepParams.self))
                        : (side == "ours" ? ours(line, TaskStartParams.self) : foundation(line, TaskStartParams.self))
                    if parsed { ok += 1 }
                }
                precondition(ok == n, "\(side) failed to parse \(name)")
                results.append("\(side) \(String(format: "%.2f", Date().timeIntervalSince(t0) / Double(n) * 1e6)) µs")
            }
            Benchmarks.say("parse \(name) (\(line.count) bytes) + params, per request: \(results.joined(separator: ", "))")
        }
    }
}
