import FoundationEssentials
import Glibc
import RecorderModel

/// Distance walked from consecutive position fixes: great-circle distance between fixes whose
/// horizontal accuracy is better than `accuracyThreshold`; other fixes are counted, not used.
public struct DistanceTracker: Sendable {
    public let accuracyThreshold: Double
    public private(set) var total = 0.0
    public private(set) var acceptedFixes = 0
    public private(set) var unusedFixes = 0
    var previous: (latitude: Double, longitude: Double)?

    /// Mean Earth radius (IUGG), metres.
    static let earthRadius = 6_371_008.8

    public init(accuracyThreshold: Double = 20) {
        self.accuracyThreshold = accuracyThreshold
    }

    /// Adds a fix; returns the distance from the previous accepted fix (nil when this one is not
    /// used) and the total so far.
    public mutating func add(_ fix: LocationFix) -> (relative: Double?, total: Double) {
        guard fix.mode >= 2, let lat = fix.latitude, let lon = fix.longitude,
              let accuracy = fix.horizontalAccuracy, accuracy < accuracyThreshold else {
            unusedFixes += 1
            return (nil, total)
        }
        acceptedFixes += 1
        defer { previous = (lat, lon) }
        guard let previous else { return (0, total) }
        let d = Self.greatCircle(previous.latitude, previous.longitude, lat, lon)
        total += d
        return (d, total)
    }

    /// Haversine distance in metres between two points in degrees.
    public static func greatCircle(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let p1 = lat1 * .pi / 180, p2 = lat2 * .pi / 180
        let dp = p2 - p1, dl = (lon2 - lon1) * .pi / 180
        let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * earthRadius * asin(min(1, sqrt(a)))
    }
}
