import RecorderModel

/// A location recorder's content: one record per fix, with the distance walked (recordings) and
/// coordinates when the configuration saves them.
struct LocationRecords: RecordProducer {
    /// Distance walked (nil: none, as in live streams).
    var distance: DistanceTracker?
    let saveCoordinates: Bool
    /// Metres walked in each step path.
    var distanceByStep: [String: Double] = [:]

    mutating func add(_ frame: SensorFrame, to sink: inout RecordSink) {
        switch frame {
        case .location(let fix):
            guard distance != nil else {
                return sink.appendLocation(fix, relativeDistance: nil, totalDistance: nil, saveCoordinates: saveCoordinates)
            }
            // The record carries the step path in force at the fix.
            sink.markSteps(upTo: fix.uptime)
            let walked = distance!.add(fix)
            if let step = walked.relative, let path = sink.stepPath { distanceByStep[path.value, default: 0] += step }
            sink.appendLocation(fix, relativeDistance: walked.relative, totalDistance: walked.total, saveCoordinates: saveCoordinates)
        case .gap(let uptime, let gapTypes, let dropped, _) where gapTypes.contains(.location):
            sink.appendGap(uptime: uptime, sensorType: .location, droppedSamples: dropped)
        default:
            break
        }
    }

    mutating func ringLost(_ count: Int, before uptime: Double, to sink: inout RecordSink) {
        sink.appendGap(uptime: uptime, sensorType: .location, droppedSamples: count)
    }

    func describe(_ result: inout FileResult) {
        guard let distance else { return }
        result.totalDistance = distance.total
        result.distanceByStep = distanceByStep
        result.unusedFixes = distance.unusedFixes
    }
}
