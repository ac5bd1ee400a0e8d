import Foundation
import RecorderEngine

extension IIOBenchmark {
    /// CPU seconds that hashing and writing a recording's own file costs, with nothing else: its
    /// lines handed to a `RecordFileWriter` (SHA-256, one `write(2)` per drain, `fdatasync` once a
    /// second) in pieces of `drainScans` scans, as a recording does at `rate`. What any JSON-lines
    /// recorder of these bytes pays on top of acquiring them — the floor under the writer's CPU.
    /// Nil when the file cannot be read.
    static func fileFloorCPU(of path: String, scansPerLine: Double, rate: Double, drainScans: Int = 2500) -> (cpu: Double, scans: Double)? {
        guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return nil }
        let bytes = [UInt8](data)
        // Pieces of whole lines, as the drains wrote them.
        var pieces: [[UInt8]] = []
        let linesPerPiece = max(1, Int(Double(drainScans) / scansPerLine))
        var start = 0, lines = 0, totalLines = 0
        for i in bytes.indices where bytes[i] == UInt8(ascii: "\n") {
            lines += 1
            totalLines += 1
            if lines == linesPerPiece {
                pieces.append(Array(bytes[start...i]))
                start = i + 1
                lines = 0
            }
        }
        if start < bytes.count { pieces.append(Array(bytes[start...])) }
        let output = path + ".floor"
        defer { unlink(output) }
        guard let writer = try? RecordFileWriter(path: output) else { return nil }
        let interval = Double(drainScans) / rate
        let cpu0 = Benchmarks.threadCPUSeconds()
        for (i, piece) in pieces.enumerated() {
            try? writer.write(piece)
            writer.syncIfDue(now: Double(i + 1) * interval)
        }
        _ = writer.sha256
        try? writer.close()
        return (Benchmarks.threadCPUSeconds() - cpu0, Double(totalLines) * scansPerLine)
    }
}
