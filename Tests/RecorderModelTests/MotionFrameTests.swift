import RecorderModel
import Testing

/// A motion frame is copied several times per sample (into the delivery, through the ring's
/// readers, into each producer): its layout is part of the per-sample cost.
struct MotionFrameTests {
    @Test func isCompact() {
        #expect(MemoryLayout<MotionFrame>.stride <= 96, "the raw vectors without Optional padding, the fused motion boxed")
        #expect(MemoryLayout<SensorFrame>.stride <= 104)
    }

    @Test func vectorsAreOptionalAsBefore() {
        let a = Vector3(x: 1, y: 2, z: 3)
        var frame = MotionFrame(uptime: 1, accelerometer: a)
        #expect(frame.accelerometer == a && frame.gyro == nil && frame.magnetometer == nil && frame.fused == nil)
        frame.gyro = a
        frame.accelerometer = nil
        #expect(frame.accelerometer == nil && frame.gyro == a)
        // Absent is absent, whatever was stored before: equal to a frame that never had it.
        #expect(frame == MotionFrame(uptime: 1, gyro: a))
        frame.setRaw(a, for: .magnetometer)
        #expect(frame.vector(for: .magnetometer) == a)
        #expect(frame != MotionFrame(uptime: 1, gyro: a))
    }

    @Test func fusedMotionIsAValue() {
        let motion = DeviceMotion(attitude: Quaternion(w: 1, x: 0, y: 0, z: 0), referenceCoordinate: .zUp, gravity: Vector3(x: 0, y: 0, z: -1),
                                  userAcceleration: .zero, rotationRate: .zero)
        var frame = MotionFrame(uptime: 2, fused: motion)
        let copy = frame
        frame.fused?.gravity = Vector3(x: 0, y: -1, z: 0)
        #expect(copy.fused?.gravity == Vector3(x: 0, y: 0, z: -1), "a copy keeps its own fused motion")
        #expect(frame.fused?.gravity == Vector3(x: 0, y: -1, z: 0))
        #expect(copy == MotionFrame(uptime: 2, fused: motion))
        frame.fused = nil
        #expect(frame == MotionFrame(uptime: 2))
    }
}
