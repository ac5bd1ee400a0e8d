@testable import RecorderEngine
import RecorderModel
import RecorderTestSupport
import Testing

@Suite("Ring buffer")
struct FrameRingTests {
    func frames(_ range: Range<Int>) -> [SensorFrame] {
        range.map { .motion(MotionFrame(uptime: Double($0), accelerometer: Vector3(x: Double($0), y: 0, z: 0))) }
    }

    func uptimes(_ frames: [SensorFrame]) -> [Int] { frames.map { Int($0.uptime) } }

    @Test func wrapsAndKeepsTheNewest() {
        let ring = FrameRing(capacity: 8)
        let reader = ring.addReader(fromUptime: nil) {}
        ring.deliver(frames(0..<5))
        var out: [SensorFrame] = []
        #expect(reader.read(into: &out) == 0)
        #expect(uptimes(out) == [0, 1, 2, 3, 4])
        ring.deliver(frames(5..<13))
        out.removeAll()
        #expect(reader.read(into: &out) == 0)
        #expect(uptimes(out) == Array(5..<13))
        #expect(ring.totalWritten == 13)
    }

    @Test func aSlowReaderLosesItsOldestAndIsToldHowMany() {
        let ring = FrameRing(capacity: 10)
        let slow = ring.addReader(fromUptime: nil) {}
        let fast = ring.addReader(fromUptime: nil) {}
        var out: [SensorFrame] = []
        for chunk in stride(from: 0, to: 35, by: 5) {
            ring.deliver(frames(chunk..<chunk + 5))
            out.removeAll()
            #expect(fast.read(into: &out) == 0)
            #expect(uptimes(out) == Array(chunk..<chunk + 5))
        }
        out.removeAll()
        #expect(slow.read(into: &out) == 25)
        #expect(uptimes(out) == Array(25..<35))
        out.removeAll()
        #expect(slow.read(into: &out) == 0)
        #expect(out.isEmpty)
    }

    @Test func readsInBoundedBatches() {
        let ring = FrameRing(capacity: 100)
        let reader = ring.addReader(fromUptime: nil) {}
        ring.deliver(frames(0..<50))
        var out: [SensorFrame] = []
        #expect(reader.read(into: &out, maximum: 20) == 0)
        #expect(out.count == 20)
        #expect(reader.backlog == 30)
    }

    @Test func readsSpanDeliveriesAndStopAtTheMaximum() {
        let ring = FrameRing(capacity: 100)
        let reader = ring.addReader(fromUptime: nil) {}
        for start in stride(from: 0, to: 15, by: 5) { ring.deliver(frames(start..<start + 5)) }
        let first = reader.read(maximum: 7)
        #expect(first.count == 7 && first.slices.count == 2 && first.lost == 0)
        var seen: [Int] = []
        first.forEach { seen.append(Int($0.uptime)); return true }
        #expect(seen == Array(0..<7))
        #expect(first.first?.uptime == 0 && first.last?.uptime == 6)
        let rest = reader.read(maximum: 100)
        seen.removeAll()
        let completed = rest.forEach { seen.append(Int($0.uptime)); return $0.uptime < 10 }
        #expect(!completed, "stops where the body says")
        #expect(seen == Array(7...10))
        #expect(rest.count == 8 && reader.backlog == 0)
    }

    @Test func holdsItsCapacityAndAtMostOneDeliveryMore() {
        let ring = FrameRing(capacity: 10)
        let reader = ring.addReader(fromUptime: nil) {}
        for start in stride(from: 0, to: 3_000, by: 3) {
            ring.deliver(frames(start..<start + 3))
            let held = ring.heldFrames
            #expect(held >= min(10, start + 3) && held < 10 + 3, "after \(start + 3) frames: \(held) held")
        }
        let batch = reader.read(maximum: 100)
        #expect(batch.lost == 2_990 && batch.count == 10 && batch.first?.uptime == 2_990)
    }

    @Test func memoryIsBoundedByFramesWhateverTheWriterAllocates() {
        // A writer that reuses a large buffer (`removeAll(keepingCapacity:)`) hands over arrays with
        // room for 1,024 frames holding one: the ring must not keep that room per delivery.
        let ring = FrameRing(capacity: 100)
        var buffer: [SensorFrame] = []
        buffer.reserveCapacity(1024)
        for i in 0..<1_000 {
            buffer.removeAll(keepingCapacity: true)
            buffer.append(contentsOf: frames(i..<i + 1))
            ring.deliver(buffer)
        }
        #expect(ring.heldFrames == 100)
        #expect(ring.heldCapacity <= 2 * 100, "room kept: \(ring.heldCapacity) frames")
    }

    @Test func preRollStartsAtTheFirstFrameAtOrAfterTheGivenUptime() {
        let ring = FrameRing(capacity: 10)
        ring.deliver(frames(0..<25))
        var out: [SensorFrame] = []
        let preRoll = ring.addReader(fromUptime: 21.5) {}
        #expect(preRoll.read(into: &out) == 0)
        #expect(uptimes(out) == [22, 23, 24])
        out.removeAll()
        // Further back than the ring holds: starts at the oldest frame held.
        let long = ring.addReader(fromUptime: 3) {}
        #expect(long.read(into: &out) == 0)
        #expect(uptimes(out) == Array(15..<25))
        out.removeAll()
        let now = ring.addReader(fromUptime: nil) {}
        #expect(now.read(into: &out) == 0 && out.isEmpty)
    }

    @Test(.ownThread) func readersAreNotifiedAndDetach() async {
        let ring = FrameRing(capacity: 4)
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self)
        let reader = ring.addReader(fromUptime: nil) { continuation.yield() }
        ring.deliver(frames(0..<1))
        var iterator = signals.makeAsyncIterator()
        #expect(await iterator.next() != nil)
        #expect(ring.readerCount == 1)
        reader.close()
        #expect(ring.readerCount == 0)
    }
}
