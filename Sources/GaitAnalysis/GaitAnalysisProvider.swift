import RecorderEngine
import RecorderModel

/// The `gait` analysis for the daemon: reads a motion device's accelerometer (and fused gravity,
/// user acceleration and rotation rate where the device has a gyroscope), at least
/// `InitialContactDetector.minimumInputRate` Hz (faster devices are binned down to the method's
/// 40 Hz, not refused); live subscribers ask for its events as `step`.
public struct GaitAnalysisProvider: AnalysisProvider {
    public init() {}

    public var actionType: AsyncActionType { .gait }
    public var streamedType: SensorType { .step }

    public func inputTypes(capabilities: DeviceCapabilities) throws(AnalysisRefusal) -> [SensorType] {
        guard capabilities.sensorTypes.contains(.accelerometer) else {
            throw AnalysisRefusal("it has no accelerometer (steps and sway are found in the acceleration)")
        }
        guard capabilities.rate >= InitialContactDetector.minimumInputRate else {
            throw AnalysisRefusal("it samples at \(Self.hertz(capabilities.rate)) Hz, below the "
                + "\(Self.hertz(InitialContactDetector.minimumInputRate)) Hz the step detector needs")
        }
        var types: [SensorType] = [.accelerometer]
        for t in [SensorType.gyro, .gravity, .userAcceleration, .rotationRate] where capabilities.sensorTypes.contains(t) {
            types.append(t)
        }
        return types
    }

    /// A rate as people write it: 25, 12.5.
    static func hertz(_ rate: Double) -> String {
        rate == rate.rounded() && abs(rate) < 1e15 ? String(Int(rate)) : String(rate)
    }

    public func makeProducer(configuration: AsyncActionConfiguration?, capabilities: DeviceCapabilities) -> any RecordProducer {
        var location = SensorLocation.lowerBack
        var pendulumLength: Double?
        var walkingTest: WalkingTest?
        if case .gait(let o) = configuration?.options {
            location = o.sensorLocation
            pendulumLength = o.pendulumLength
            walkingTest = o.walkingTest
        }
        return GaitRecords(identifier: configuration?.identifier ?? "", rate: capabilities.rate, sensorLocation: location,
                           pendulumLength: pendulumLength, walkingTest: walkingTest)
    }
}
