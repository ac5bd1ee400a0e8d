import RecorderModel
import RecorderRuntime
import Synchronization

/// One device's bounded ring of frames: a single writer (the sampler) and any number of
/// independent readers (recordings, live subscribers).
///
/// The writer never waits for readers. A reader that falls more than `capacity` frames behind
/// loses its oldest unread frames; `read` reports how many, so the loss can be written as a gap.
/// Like NIOExtras' `PCAPRingBuffer`, it drops the oldest, but per reader.
///
/// Frames are held as the batches the writer delivered (one array reference per delivery, not a
/// copy per frame), and readers get slices of those batches: a frame is copied by neither the
/// ring nor its readers. The ring holds exactly the newest `capacity` frames for its readers; a
/// batch older frames still share stays in memory until all of it is older (at most one
/// delivery more than `capacity`).
public final class FrameRing: FrameSink, Sendable {
    struct ReaderEntry {
        var cursor: UInt64
        let notify: @Sendable () -> Void
    }

    /// One delivery: `frames` are frames `start ..< start + frames.count` of all ever written.
    struct Batch {
        let start: UInt64
        let frames: [SensorFrame]
        var end: UInt64 { start + UInt64(frames.count) }
    }

    struct State {
        /// Deliveries, oldest first from `first`.
        var batches: [Batch] = []
        var first = 0
        /// Frames ever written.
        var head: UInt64 = 0
        var readers: [Int: ReaderEntry] = [:]
        var nextReaderID = 0
        var notifiers: [@Sendable () -> Void] = []

        /// The oldest frame readers may still read.
        func oldest(capacity: Int) -> UInt64 { head > UInt64(capacity) ? head - UInt64(capacity) : 0 }

        /// Index in `batches` of the batch holding frame `n` (which must be held).
        func batchIndex(of n: UInt64) -> Int {
            var low = first, high = batches.count - 1
            while low < high {
                let mid = (low + high + 1) / 2
                if batches[mid].start <= n { low = mid } else { high = mid - 1 }
            }
            return low
        }

        /// Drops the batches every frame of which is older than `oldest`.
        mutating func evict(before oldest: UInt64) {
            while first < batches.count, batches[first].end <= oldest { first += 1 }
            if first >= 64, first * 2 >= batches.count {
                batches.removeFirst(first)
                first = 0
            }
        }
    }

    /// Frames the ring holds.
    public let capacity: Int
    private let state: LockedValue<State>
    /// CLOCK_MONOTONIC of the writer's last heartbeat or delivery (bit pattern of a Double).
    private let lastHeartbeat = Atomic<UInt64>(0)

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        state = LockedValue(State())
    }

    /// Frames ever written.
    public var totalWritten: UInt64 { state.withLock { $0.head } }

    /// Frames kept in memory: the `capacity` newest, and the older part of a delivery that
    /// straddles the oldest of them.
    var heldFrames: Int {
        state.withLock { s in s.batches[s.first...].reduce(0) { $0 + $1.frames.count } }
    }

    /// Room for frames in the arrays kept (what the memory is).
    var heldCapacity: Int {
        state.withLock { s in s.batches[s.first...].reduce(0) { $0 + $1.frames.capacity } }
    }

    /// Readers attached now.
    public var readerCount: Int { state.withLock { $0.readers.count } }

    public func heartbeat() {
        lastHeartbeat.store(SystemClock.monotonicUptime().bitPattern, ordering: .relaxed)
    }

    /// When the writer last showed life (CLOCK_MONOTONIC seconds; 0 before it ever did).
    public var lastHeartbeatUptime: Double { Double(bitPattern: lastHeartbeat.load(ordering: .relaxed)) }

    /// Keeps `frames` (the array itself: the writer hands it over and starts a new one). An array
    /// with much more room than frames (a reused buffer) is copied to its size first: the ring's
    /// memory stays bounded by its frames, whatever the writer allocates.
    public func deliver(_ frames: consuming [SensorFrame]) {
        heartbeat()
        var kept = frames
        guard !kept.isEmpty else { return }
        if kept.capacity > 2 * kept.count + 16 {
            var fitted: [SensorFrame] = []
            fitted.reserveCapacity(kept.count)
            fitted.append(contentsOf: kept)
            kept = fitted
        }
        let notifiers: [@Sendable () -> Void] = state.withLock { s in
            s.head &+= UInt64(kept.count)
            s.batches.append(Batch(start: s.head - UInt64(kept.count), frames: kept))
            s.evict(before: s.oldest(capacity: capacity))
            return s.notifiers
        }
        for notify in notifiers { notify() }
    }

    /// Attaches a reader. It starts at the first frame measured at or after `uptime` that the ring
    /// still holds (pre-roll), or at the next frame written when `uptime` is nil.
    /// `notify` is called (on the writer's thread; keep it short) after frames are written.
    public func addReader(fromUptime uptime: Double?, notify: @escaping @Sendable () -> Void) -> RingReader {
        let id: Int = state.withLock { s in
            var cursor = s.head
            if let uptime {
                // Back from the newest, batch by batch, while frames are measured at or after `uptime`.
                let oldest = s.oldest(capacity: capacity)
                var index = s.batches.count - 1
                search: while index >= s.first {
                    let batch = s.batches[index]
                    for k in batch.frames.indices.reversed() {
                        let n = batch.start + UInt64(k)
                        if n < oldest || batch.frames[k].uptime < uptime { break search }
                        cursor = n
                    }
                    index -= 1
                }
            }
            let id = s.nextReaderID
            s.nextReaderID += 1
            s.readers[id] = ReaderEntry(cursor: cursor, notify: notify)
            s.notifiers = s.readers.sorted { $0.key < $1.key }.map(\.value.notify)
            return id
        }
        return RingReader(ring: self, id: id)
    }

    func removeReader(_ id: Int) {
        state.withLock { s in
            s.readers[id] = nil
            s.notifiers = s.readers.sorted { $0.key < $1.key }.map(\.value.notify)
        }
    }

    /// Up to `maximum` unread frames of reader `id`, and the frames it lost (overwritten before
    /// they were read) since the previous read.
    func read(_ id: Int, maximum: Int) -> FrameBatch {
        state.withLock { s in
            guard var entry = s.readers[id] else { return FrameBatch() }
            let oldest = s.oldest(capacity: capacity)
            var result = FrameBatch()
            if entry.cursor < oldest {
                result.lost = oldest - entry.cursor
                entry.cursor = oldest
            }
            var left = Int(min(UInt64(max(0, maximum)), s.head - entry.cursor))
            if left > 0 {
                var index = s.batchIndex(of: entry.cursor)
                while left > 0 {
                    let batch = s.batches[index]
                    let from = Int(entry.cursor - batch.start)
                    let to = min(batch.frames.count, from + left)
                    result.slices.append(batch.frames[from..<to])
                    result.count += to - from
                    left -= to - from
                    entry.cursor += UInt64(to - from)
                    index += 1
                }
            }
            s.readers[id] = entry
            return result
        }
    }

    /// Unread frames of reader `id`.
    func backlog(_ id: Int) -> UInt64 {
        state.withLock { s in
            guard let entry = s.readers[id] else { return 0 }
            return s.head - entry.cursor
        }
    }
}

/// What one read of a `RingReader` returns: consecutive frames, as slices of the ring's batches
/// (no frame copied), and how many frames the reader lost before them.
public struct FrameBatch: Sendable {
    /// The frames, in order.
    public var slices: [ArraySlice<SensorFrame>] = []
    /// Frames in `slices`.
    public var count = 0
    /// Frames overwritten before this reader read them, just before these.
    public var lost: UInt64 = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }

    /// The first frame.
    public var first: SensorFrame? { slices.first?.first }

    /// The last frame.
    public var last: SensorFrame? { slices.last?.last }

    /// Calls `body` with each frame in order, without copying the frames out of the ring's
    /// batches; stops when it returns false. Returns false when stopped.
    @inlinable @discardableResult
    public func forEach(_ body: (borrowing SensorFrame) -> Bool) -> Bool {
        for slice in slices {
            let goOn = slice.withUnsafeBufferPointer { frames in
                for i in frames.indices where !body(frames[i]) { return false }
                return true
            }
            if !goOn { return false }
        }
        return true
    }
}

/// One independent reader of a `FrameRing`.
public final class RingReader: Sendable {
    let ring: FrameRing
    let id: Int

    init(ring: FrameRing, id: Int) {
        self.ring = ring
        self.id = id
    }

    /// Up to `maximum` unread frames, and how many frames this reader lost before them because it
    /// fell behind by more than the ring's capacity.
    public func read(maximum: Int = 4096) -> FrameBatch {
        ring.read(id, maximum: maximum)
    }

    /// Appends up to `maximum` unread frames to `frames` (copies); returns how many frames this
    /// reader lost because it fell behind by more than the ring's capacity.
    public func read(into frames: inout [SensorFrame], maximum: Int = 4096) -> UInt64 {
        let batch = read(maximum: maximum)
        for slice in batch.slices { frames.append(contentsOf: slice) }
        return batch.lost
    }

    /// Frames written and not yet read (up to the capacity; more means loss).
    public var backlog: UInt64 { ring.backlog(id) }

    /// Detaches the reader.
    public func close() {
        ring.removeReader(id)
    }
}
