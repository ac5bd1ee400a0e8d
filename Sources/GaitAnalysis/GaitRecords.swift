import FoundationEssentials
import Glibc
import RecorderEngine
import RecorderModel

/// A `gait` analysis joining a device's record pipeline: each motion frame is turned into the
/// vertical and horizontal acceleration and the yaw rate (vertical is what fused `gravity` says,
/// so any sensor orientation works), fed to the `GaitTracker` with the frame's step path, and its
/// events written as they are found: a `step` record per initial contact, a `bout` record per
/// walking bout. The analysis runs on across step boundaries (`GaitTracker`); each step path's
/// stretch gets a summary (`stepSummaries` in the file result; `summary(ofStep:)` for
/// `step.finish`).
///
/// Without fused motion (a device without a gyroscope) gravity is the accelerometer low-passed
/// (time constant `gravityTimeConstant`).
public struct GaitRecords: RecordProducer {
    public static let gravityTimeConstant = 1.0
    /// Seconds over which the posture's up direction (for sway's horizontal directions) is averaged.
    public static let postureTimeConstant = 10.0

    private var tracker: GaitTracker
    private var events: [GaitTracker.Event] = []
    /// Gravity from the accelerometer alone (no fused frames).
    private var lowPassGravity: Vector3?
    /// Up averaged over `postureTimeConstant`.
    private var postureUp: Vector3?
    private var lastUptime: Double?

    /// `identifier`: the action's (empty in live streams); `rate`: the device's samples per
    /// second; `pendulumLength`: the lower-back sensor's height above the ground (m), for stride
    /// length, walking speed and distance (nil: steps only); `walkingTest`: a clinical walking test
    /// scored over its step (`summary(ofStep:)`, `stepSummaries`).
    public init(identifier: String, rate: Double, sensorLocation: SensorLocation, pendulumLength: Double? = nil,
                walkingTest: WalkingTest? = nil) {
        tracker = GaitTracker(identifier: identifier, rate: rate, measuresSway: sensorLocation == .lowerBack,
                              pendulumLength: sensorLocation == .lowerBack ? pendulumLength : nil, walkingTest: walkingTest)
    }

    public var seesEveryFrame: Bool { true }

    /// The summaries of the stretches that are final.
    public var summaries: [GaitStepSummary] { tracker.summaries }

    public mutating func add(_ frame: SensorFrame, to sink: inout RecordSink) {
        switch frame {
        case .motion(let m):
            guard let acceleration = m.accelerometer,
                  acceleration.x.isFinite, acceleration.y.isFinite, acceleration.z.isFinite else { return }
            let dt = lastUptime.map { min(max(m.uptime - $0, 0), 1) } ?? 0
            let gravity: Vector3
            let userAcceleration: Vector3
            if let fused = m.fused {
                gravity = fused.gravity
                userAcceleration = fused.userAcceleration
            } else {
                let previous = lowPassGravity ?? acceleration
                gravity = previous + (acceleration - previous) * (dt / (Self.gravityTimeConstant + dt))
                lowPassGravity = gravity
                userAcceleration = acceleration - gravity
            }
            let length = gravity.length
            guard length > 0, length.isFinite else { return }
            let up = gravity * (1 / length)
            let vertical = userAcceleration.dot(up)
            // Sway as ISway measures it: the accelerometer itself along directions that stay
            // horizontal for the posture held (up averaged over `postureTimeConstant`), so that a
            // tilting trunk's sway — mostly gravity along the tilted axes — counts, as it does in
            // Mancini et al.'s measures.
            let previousPosture = postureUp ?? up
            var posture = previousPosture + (up - previousPosture) * (dt / (Self.postureTimeConstant + dt))
            posture = posture * (1 / posture.length)
            postureUp = posture
            let (apAxis, mlAxis) = Self.horizontalAxes(up: posture)
            let ap = acceleration.dot(apAxis), ml = acceleration.dot(mlAxis)
            var yawRate = (m.fused?.rotationRate ?? m.gyro).map { $0.dot(up) }
            if yawRate?.isFinite == false { yawRate = nil }
            // A reading that is not a number (a sensor fault) would poison the running sums for
            // good: it is left out, like a lost sample.
            guard vertical.isFinite, ap.isFinite, ml.isFinite else {
                lastUptime = m.uptime
                return
            }
            tracker.add(uptime: m.uptime, stepPath: sink.stepPath(at: m.uptime)?.value ?? "", vertical: vertical, ap: ap, ml: ml, yawRate: yawRate, up: up, events: &events)
            lastUptime = m.uptime
            write(to: &sink)
        case .gap(_, let types, let dropped, _) where types.contains(.accelerometer):
            tracker.gap(droppedSamples: dropped, events: &events)
            write(to: &sink)
        default:
            break
        }
    }

    public mutating func ringLost(_ count: Int, before uptime: Double, to sink: inout RecordSink) {
        tracker.gap(droppedSamples: count, events: &events)
        write(to: &sink)
    }

    public mutating func finish(to sink: inout RecordSink) {
        tracker.finish(events: &events)
        write(to: &sink)
    }

    /// The anterior-posterior and medio-lateral directions (device axes, horizontal, unit): the
    /// device's z axis laid in the horizontal plane — the axis out of the face of a sensor worn
    /// flat on the lower back — or, when z is near vertical (a sensor lying flat), its x axis.
    static func horizontalAxes(up: Vector3) -> (ap: Vector3, ml: Vector3) {
        var axis = Vector3(x: 0, y: 0, z: 1)
        if abs(up.z) > 0.8 { axis = Vector3(x: 1, y: 0, z: 0) }
        let flat = axis - up * axis.dot(up)
        let ap = flat * (1 / flat.length)
        return (ap, up.cross(ap))
    }

    private mutating func write(to sink: inout RecordSink) {
        guard !events.isEmpty else { return }
        for event in events {
            switch event {
            case .step(let uptime, let side, let stride): sink.appendStep(uptime: uptime, side: side, strideLength: stride)
            case .bout(let start, let end, let steps, let cadence, let spatial):
                sink.appendBout(start: start, end: end, steps: steps, cadence: cadence, spatial: spatial)
            }
        }
        events.removeAll(keepingCapacity: true)
    }

    public func describe(_ result: inout FileResult) {
        result.stepSummaries = tracker.summaries
        result.conventions = [
            "step": "event step: an initial contact (heel strike) at uptime, side its foot (left or right) where a gyroscope "
                + "tells it; event bout: a walking bout of steps from startUptime to uptime (its first and last step). "
                + "Summaries count the steps of bouts. With the participant's bodyHeight or sensorHeight: strideLength (m) on a "
                + "step is the stride ending at it; distance (m), walkingSpeed (m/s) and strideLength (m, mean) on a bout, from "
                + "each step's trunk excursion through an inverted pendulum (Zijlstra & Hof with their correction of 1.25, after a 6.5 mm excursion floor). "
                + "A walkingTest's outcome (six-minute walk, timed walk, Timed Up and Go) is in its step's summary (walkingTest).",
            "sway": "the accelerometer along the horizontal directions of the posture held (up averaged over 10 s), as ISway: "
                + "AP along the device's z axis laid horizontal (x when z is near vertical), ML perpendicular; g",
        ]
    }

    public func summary(ofStep path: String) -> StepSummary? {
        tracker.summary(ofStep: path).map(StepSummary.gait)
    }

    public func finalSummary(ofStep path: String) -> GaitStepSummary? {
        tracker.finalSummary(ofStep: path)
    }
}
