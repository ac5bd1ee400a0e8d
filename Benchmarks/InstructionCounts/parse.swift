// Instruction counts of reading requests (scripts/count-instructions.sh builds this with the
// RecorderModel sources and runs it under callgrind): a synchronous main, which valgrind can
// follow (the async benchmark's dispatch_main crashes valgrind 3.19).
// Usage: parse ours|foundation N
import Foundation

let step = Array(#"{"jsonrpc":"2.0","id":42,"method":"step.start","params":{"taskRunUUID":"3F2504E0-4F89-41D3-9A0C-0305E82C3301","stepPath":"gait-balance/walking.outbound"}}"#.utf8)
let start = Array(#"{"jsonrpc":"2.0","id":7,"method":"task.start","params":{"taskIdentifier":"gait-balance","asyncActions":[{"identifier":"motion","type":"motion","startStepIdentifier":"walking.outbound","stopStepIdentifier":"walking.rest","recorderTypes":["accelerometer","gyro"],"frequency":100},{"identifier":"location","type":"location","saveCoordinates":false}]}}"#.utf8)

struct FoundationRequest<P: Decodable>: Decodable {
    var jsonrpc: String
    var id: Int64?
    var method: String
    var params: P
}

let side = CommandLine.arguments[1]
let n = Int(CommandLine.arguments[2])!
var ok = 0
for _ in 0..<n {
    if side == "ours" {
        if let s = try? JSONRPCRequest.parse(line: step), (try? s.params!.decode(StepParams.self)) != nil { ok += 1 }
        if let t = try? JSONRPCRequest.parse(line: start), (try? t.params!.decode(TaskStartParams.self)) != nil { ok += 1 }
    } else {
        if (try? JSONDecoder().decode(FoundationRequest<StepParams>.self, from: Data(step))) != nil { ok += 1 }
        if (try? JSONDecoder().decode(FoundationRequest<TaskStartParams>.self, from: Data(start))) != nil { ok += 1 }
    }
}
precondition(ok == 2 * n)
print(ok)
