/// Postural-sway measures of one step (Mancini et al.'s instrumented sway), from the
/// acceleration in the horizontal plane: anterior-posterior (AP) and medio-lateral (ML).
public struct SwayMeasures: Sendable, Equatable, Codable {
    /// Root mean square about the mean, g.
    public var rmsAP: Double
    public var rmsML: Double
    /// Half the mean squared time derivative of the acceleration (AP and ML), g²/s².
    public var jerk: Double
    /// Length of the acceleration's trajectory in the horizontal plane, g.
    public var pathLength: Double
    /// pathLength / duration, g/s.
    public var meanVelocity: Double
    /// Area of the ellipse holding 95 % of the points, g².
    public var ellipseArea95: Double
    /// meanVelocity / (2π · mean distance from the mean point), Hz.
    public var meanFrequency: Double
    /// Seconds measured.
    public var duration: Double

    public init(rmsAP: Double, rmsML: Double, jerk: Double, pathLength: Double, meanVelocity: Double, ellipseArea95: Double,
                meanFrequency: Double, duration: Double) {
        self.rmsAP = rmsAP
        self.rmsML = rmsML
        self.jerk = jerk
        self.pathLength = pathLength
        self.meanVelocity = meanVelocity
        self.ellipseArea95 = ellipseArea95
        self.meanFrequency = meanFrequency
        self.duration = duration
    }
}
