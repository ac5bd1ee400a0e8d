import RecorderModel
import Synchronization

/// A device's stage and how many leases ask for what it adds.
final class StageSlot: Sendable {
    let stage: any FrameStage
    /// Leases asking for one of the stage's types.
    let demand = Atomic<Int>(0)
    /// Whether it ran on the last delivery (read and written on the sampling thread only).
    let ranLast = Atomic<Bool>(false)

    init(stage: any FrameStage) { self.stage = stage }

    var isWanted: Bool { stage.alwaysOn || demand.load(ordering: .relaxed) > 0 }
}

/// What a device's source delivers to: its stages (those wanted now), then its ring.
final class StagedFrameSink: FrameSink {
    let ring: FrameRing
    let slots: [StageSlot]

    init(ring: FrameRing, slots: [StageSlot]) {
        self.ring = ring
        self.slots = slots
    }

    func deliver(_ frames: consuming [SensorFrame]) {
        for slot in slots {
            let wanted = slot.isWanted
            let ran = slot.ranLast.exchange(wanted, ordering: .relaxed)
            guard wanted else { continue }
            if !ran { slot.stage.restart() }
            slot.stage.process(&frames)
        }
        ring.deliver(frames)
    }

    func heartbeat() { ring.heartbeat() }
}
