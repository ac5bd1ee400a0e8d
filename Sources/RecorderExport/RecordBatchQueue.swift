import FoundationEssentials
import Glibc
import RecorderModel
import RecorderRuntime
import Dispatch

/// A bounded hand-off of record batches from one reading thread to one consuming thread: at most
/// `depth` batches wait (memory stays flat), the reader blocks while the consumer catches up,
/// and either side can stop the other (the end, a reader's error, a consumer that gave up).
///
/// `@unchecked Sendable`: `batches`, `end` and `cancelled` are only touched under `lock` (a
/// pthread mutex, which ThreadSanitizer sees); the semaphores count free slots and waiting
/// batches.
/// Bridge (a reading thread → the exporting thread): a file is read and decoded on its own thread
/// while the exporter writes, with a bounded number of batches between them.
final class RecordBatchQueue: @unchecked Sendable {
    enum End { case finished(RecordFileReader.Outcome), failed(ExportError) }

    private let lock = PThreadLock()
    private var batches: [[Record]] = []
    private var end: End?
    private var cancelled = false
    private let free: DispatchSemaphore
    private let ready = DispatchSemaphore(value: 0)

    init(depth: Int) {
        free = DispatchSemaphore(value: depth)
    }

    /// The reader: waits for a free slot; false when the consumer gave up.
    func put(_ batch: [Record]) -> Bool {
        free.wait()
        return lock.withLock {
            guard !cancelled else { return false }
            batches.append(batch)
            ready.signal()
            return true
        }
    }

    /// The reader: no more batches.
    func finish(_ end: End) {
        lock.withLock { self.end = end }
        ready.signal()
    }

    /// The consumer: the next batch, or nil at the end (then `end` says how it ended).
    func take() -> [Record]? {
        ready.wait()
        return lock.withLock {
            guard !batches.isEmpty else { return nil }
            free.signal()
            return batches.removeFirst()
        }
    }

    /// How the reading ended (after `take` returned nil).
    var outcome: End? {
        lock.withLock { end }
    }

    /// The consumer gives up: the reader's next `put` returns false.
    func cancel() {
        lock.withLock { cancelled = true }
        free.signal()
    }
}
