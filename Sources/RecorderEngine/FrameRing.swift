import RecorderModel
import Synchronization

/// One device's bounded ring of frames: a single writer (the sampler) and any number of
/// independent readers (recordings, live subscribers).
///
/// The writer never waits for readers. A reader that falls more than `capacity` frames behind
/// loses its oldest unread frames; `read` reports how many, so the loss can be written as a gap.
/// Like NIOExtras' `PCAPRingBuffer`, it drops the oldest, but per reader.
public final class FrameRing: FrameSink, Sendable {
    struct ReaderEntry {
        var cursor: UInt64
        let notify: @Sendable () -> Void
    }

    struct State {
        var storage: [SensorFrame]
        /// Frames ever written; the next frame goes to `head % capacity`.
        var head: UInt64 = 0
        var readers: [Int: ReaderEntry] = [:]
        var nextReaderID = 0
        var notifiers: [@Sendable () -> Void] = []
    }

    /// Frames the ring holds.
    public let capacity: Int
    private let state: LockedValue<State>
    /// CLOCK_MONOTONIC of the writer's last heartbeat or delivery (bit pattern of a Double).
    private let lastHeartbeat = Atomic<UInt64>(0)

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        state = LockedValue(State(storage: []))
        state.withLock { $0.storage.reserveCapacity(capacity) }
    }

    /// Frames ever written.
    public var totalWritten: UInt64 { state.withLock { $0.head } }

    /// Readers attached now.
    public var readerCount: Int { state.withLock { $0.readers.count } }

    public func heartbeat() {
        lastHeartbeat.store(SystemClock.monotonicUptime().bitPattern, ordering: .relaxed)
    }

    /// When the writer last showed life (CLOCK_MONOTONIC seconds; 0 before it ever did).
    public var lastHeartbeatUptime: Double { Double(bitPattern: lastHeartbeat.load(ordering: .relaxed)) }

    public func deliver(_ frames: [SensorFrame]) {
        heartbeat()
        guard !frames.isEmpty else { return }
        let notifiers: [@Sendable () -> Void] = state.withLock { s in
            for frame in frames {
                if s.storage.count < capacity {
                    s.storage.append(frame)
                } else {
                    s.storage[Int(s.head % UInt64(capacity))] = frame
                }
                s.head &+= 1
            }
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
                let oldest = s.head > UInt64(capacity) ? s.head - UInt64(capacity) : 0
                while cursor > oldest, s.storage[Int((cursor - 1) % UInt64(capacity))].uptime >= uptime {
                    cursor -= 1
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

    /// Copies up to `maximum` unread frames of reader `id` into `frames`; returns frames lost
    /// (overwritten before they were read) since the previous read.
    func read(_ id: Int, into frames: inout [SensorFrame], maximum: Int) -> UInt64 {
        state.withLock { s in
            guard var entry = s.readers[id] else { return 0 }
            let oldest = s.head > UInt64(capacity) ? s.head - UInt64(capacity) : 0
            var lost: UInt64 = 0
            if entry.cursor < oldest {
                lost = oldest - entry.cursor
                entry.cursor = oldest
            }
            let available = Int(min(UInt64(maximum), s.head - entry.cursor))
            for i in 0..<available {
                frames.append(s.storage[Int((entry.cursor + UInt64(i)) % UInt64(capacity))])
            }
            entry.cursor += UInt64(available)
            s.readers[id] = entry
            return lost
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

/// One independent reader of a `FrameRing`.
public final class RingReader: Sendable {
    let ring: FrameRing
    let id: Int

    init(ring: FrameRing, id: Int) {
        self.ring = ring
        self.id = id
    }

    /// Appends up to `maximum` unread frames to `frames`; returns how many frames this reader lost
    /// because it fell behind by more than the ring's capacity.
    public func read(into frames: inout [SensorFrame], maximum: Int = 4096) -> UInt64 {
        ring.read(id, into: &frames, maximum: maximum)
    }

    /// Frames written and not yet read (up to the capacity; more means loss).
    public var backlog: UInt64 { ring.backlog(id) }

    /// Detaches the reader.
    public func close() {
        ring.removeReader(id)
    }
}
