import FoundationEssentials
import Glibc
import RecorderModel

/// Postural sway from the trunk's horizontal acceleration while standing: the instrumented-sway
/// measures of Mancini et al. ("ISway: a sensitive, valid and reliable measure of postural
/// control", J. NeuroEng. Rehabil. 9:59, 2012), which take Prieto et al.'s centre-of-pressure
/// measures (IEEE Trans. Biomed. Eng. 43(9), 1996) to acceleration. Accumulated sample by
/// sample (running sums, no pass over stored data), after a second-order Butterworth low-pass at
/// `cutoff` Hz (3.5 Hz, as ISway) that keeps sensor noise out of the path.
///
/// Input: anterior-posterior and medio-lateral acceleration in g (gravity removed), at a steady
/// rate. Output units: g, g/s, g², Hz.
public struct SwayAccumulator: Sendable {
    public static let cutoff = 3.5
    /// χ² with two degrees of freedom at 95 %.
    static let chiSquare95 = 5.991

    let rate: Double
    private var filterAP: Biquad
    private var filterML: Biquad
    private var count = 0.0
    private var sumAP = 0.0, sumML = 0.0
    private var sumAP2 = 0.0, sumML2 = 0.0, sumAPML = 0.0
    private var sumJerk = 0.0
    private var path = 0.0
    private var distanceSum = 0.0
    private var last: (ap: Double, ml: Double)?

    /// `rate`: samples per second (above twice the cutoff).
    public init(rate: Double) {
        self.rate = rate
        filterAP = Biquad(lowPass: Self.cutoff, rate: rate)
        filterML = filterAP
    }

    /// One sample of horizontal acceleration, g.
    public mutating func add(ap rawAP: Double, ml rawML: Double) {
        let ap = filterAP.next(rawAP)
        let ml = filterML.next(rawML)
        count += 1
        sumAP += ap
        sumML += ml
        sumAP2 += ap * ap
        sumML2 += ml * ml
        sumAPML += ap * ml
        if let last {
            let dAP = ap - last.ap, dML = ml - last.ml
            path += (dAP * dAP + dML * dML).squareRoot()
            sumJerk += (dAP * dAP + dML * dML) * rate * rate / 2
        }
        // Distance from the running mean (the mean settles within the first seconds).
        let dx = ap - sumAP / count, dy = ml - sumML / count
        distanceSum += (dx * dx + dy * dy).squareRoot()
        last = (ap, ml)
    }

    /// The measures, once there are at least two samples.
    public var result: SwayMeasures? {
        guard count >= 2 else { return nil }
        let meanAP = sumAP / count, meanML = sumML / count
        let varAP = max(0, sumAP2 / count - meanAP * meanAP)
        let varML = max(0, sumML2 / count - meanML * meanML)
        let covariance = sumAPML / count - meanAP * meanML
        let determinant = max(0, varAP * varML - covariance * covariance)
        let duration = (count - 1) / rate
        let meanVelocity = path / duration
        let meanDistance = distanceSum / count
        return SwayMeasures(rmsAP: varAP.squareRoot(), rmsML: varML.squareRoot(), jerk: sumJerk / (count - 1), pathLength: path,
                      meanVelocity: meanVelocity, ellipseArea95: Double.pi * Self.chiSquare95 * determinant.squareRoot(),
                      meanFrequency: meanDistance > 0 ? meanVelocity / (2 * Double.pi * meanDistance) : 0, duration: duration)
    }
}
