// Instruction counts of the control plane's JSON on a step boundary (scripts/count-instructions.sh
// builds this with the RecorderModel sources and the benchmark's ProtocolEncodeBenchmark.swift,
// and runs it under callgrind): a synchronous main, which valgrind can follow.
// Usage: protocol ours|foundation params|reply|read|manifest N
import Foundation

enum Benchmarks {
    static func say(_ line: String) { print(line) }
}

setenv("BENCH_PROTOCOL_WHICH", CommandLine.arguments[1], 1)
setenv("BENCH_PROTOCOL_ROW", CommandLine.arguments[2], 1)
setenv("BENCH_PROTOCOL_N", CommandLine.arguments[3], 1)
ProtocolEncodeBenchmark.run()
