import FoundationEssentials
import Glibc
import RecorderModel
import RecorderRuntime

/// Reads a recorderd JSON-lines file record by record, in 1 MiB blocks (memory stays flat),
/// opened read-only.
///
/// A last line without its newline that is not a record is a torn write (the run was
/// interrupted, or is still recording): it is skipped and reported. A line in the middle that is
/// not a record is an error naming the file and line — data is never skipped silently.
public struct RecordFileReader: Sendable {
    /// The longest line read, bytes.
    public static let longestLine = 1 << 20

    /// What a whole read found.
    public struct Outcome: Sendable, Equatable {
        public var records = 0
        /// True when the last line was torn (skipped).
        public var tornLastLine = false

        public init(records: Int = 0, tornLastLine: Bool = false) {
            self.records = records
            self.tornLastLine = tornLastLine
        }
    }

    public let path: String
    /// The records' fields (recorderd's own unless a reader of extended records says otherwise).
    public let schema: RecordSchema

    public init(path: String, schema: RecordSchema = .standard) {
        self.path = path
        self.schema = schema
    }

    /// Calls `body` with each record in order.
    public func forEach(_ body: (Record) throws(ExportError) -> Void) throws(ExportError) -> Outcome {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .badFile("\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var outcome = Outcome()
        var block = [UInt8](repeating: 0, count: 1 << 20)
        var pending: [UInt8] = []
        var lineNumber = 0
        let name = PathText.lastComponent(of: path)
        var cache = JSONLinesDecoder.Cache()
        // One record decoded in place line after line (no copy of its ~500 bytes per line).
        var record = Record()

        func take(_ line: UnsafeBufferPointer<UInt8>) throws(ExportError) {
            lineNumber += 1
            guard !line.isEmpty else { return }
            do {
                try JSONLinesDecoder.decode(line, cache: &cache, into: &record, schema: schema)
                try body(record)
                outcome.records += 1
            } catch let failure as JSONLinesDecoder.Failure {
                throw .malformedLine(file: name, line: lineNumber, message: failure.message)
            } catch let error as ExportError {
                throw error
            } catch {
                throw .malformedLine(file: name, line: lineNumber, message: "\(error)")
            }
        }

        while true {
            let count = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .badFile("\(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            try block.withUnsafeBufferPointer { (all: UnsafeBufferPointer<UInt8>) throws(ExportError) in
                let data = UnsafeBufferPointer(rebasing: all[0..<count])
                var start = 0
                while start < count, let found = memchr(data.baseAddress! + start, 0x0A, count - start) {
                    let end = data.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    if pending.isEmpty {
                        try take(UnsafeBufferPointer(rebasing: data[start..<end]))
                    } else {
                        pending.append(contentsOf: data[start..<end])
                        let line = pending
                        pending.removeAll(keepingCapacity: true)
                        try line.withUnsafeBufferPointer { (p: UnsafeBufferPointer<UInt8>) throws(ExportError) in try take(p) }
                    }
                    start = end + 1
                }
                pending.append(contentsOf: data[start...])
                if pending.count > Self.longestLine {
                    throw .malformedLine(file: name, line: lineNumber + 1, message: "a line longer than \(Self.longestLine) bytes")
                }
            }
        }
        if !pending.isEmpty {
            // The last line has no newline: a complete record all the same, or a torn write.
            let line = pending
            if (try? JSONLinesDecoder.decode(line, schema: schema)) != nil {
                try line.withUnsafeBufferPointer { (p: UnsafeBufferPointer<UInt8>) throws(ExportError) in try take(p) }
            } else {
                outcome.tornLastLine = true
            }
        }
        return outcome
    }

    /// The uptime of the file's last complete record (its last 64 KiB read), or nil.
    public func lastUptime() -> Double? {
        guard let handle = ReadableFile(path: path), let size = handle.size,
              let tail = handle.readToEnd(from: size > 65_536 ? size - 65_536 : 0) else { return nil }
        for line in tail.split(separator: UInt8(ascii: "\n")).reversed() {
            if let record = try? JSONLinesDecoder.decode(Array(line), schema: schema), let uptime = record.uptime { return uptime }
        }
        return nil
    }

    /// Like `forEach`, with the reading and decoding on a thread of its own, a batch of records
    /// ahead of `body` (which runs on the calling thread): two cores share an export. At most
    /// eight batches of 2,048 records wait.
    public func forEachPrefetched(_ body: (Record) throws(ExportError) -> Void) throws(ExportError) -> Outcome {
        let queue = RecordBatchQueue(depth: 8)
        let reader = self
        ThreadName.start("recorderd-export-reader") {
            var batch: [Record] = []
            batch.reserveCapacity(2048)
            do throws(ExportError) {
                let outcome = try reader.forEach { (record) throws(ExportError) in
                    batch.append(record)
                    if batch.count == 2048 {
                        guard queue.put(batch) else { throw .output("stopped") }
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                if !batch.isEmpty { _ = queue.put(batch) }
                queue.finish(.finished(outcome))
            } catch {
                queue.finish(.failed(error))
            }
        }
        while let batch = queue.take() {
            for index in batch.indices {
                do {
                    try body(batch[index])
                } catch {
                    // Stop the reader and wait for it to end before giving up.
                    queue.cancel()
                    while queue.take() != nil { queue.cancel() }
                    throw error
                }
            }
        }
        switch queue.outcome {
        case .finished(let outcome)?: return outcome
        case .failed(let error)?: throw error
        case nil: throw .badFile("\(path): the reading thread ended without a result")
        }
    }
}
