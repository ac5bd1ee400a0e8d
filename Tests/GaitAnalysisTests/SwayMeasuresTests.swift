import Foundation
@testable import GaitAnalysis
import RecorderModel
import Testing

@Suite("Postural sway")
struct SwayMeasuresTests {
    /// A sinusoidal sway of amplitude A and frequency f in AP (plus ±0.002 g of sensor noise on
    /// both axes): RMS A/√2, path 4·A·f per second, mean frequency f — each within 5 %.
    @Test(arguments: [(0.02, 0.5, 100.0), (0.05, 1.2, 100.0), (0.02, 0.3, 833.0)])
    func aSinusoidalSwayGivesItsAnalyticMeasures(amplitude: Double, frequency: Double, rate: Double) throws {
        var sway = SwayAccumulator(rate: rate)
        var state: UInt64 = 42
        func noise() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (Double(state >> 11) / Double(1 << 53) - 0.5) * 0.004
        }
        let seconds = 30.0
        for i in 0..<Int(seconds * rate) {
            let t = Double(i) / rate
            sway.add(ap: amplitude * sin(2 * Double.pi * frequency * t) + noise(), ml: noise())
        }
        let r = try #require(sway.result)
        let rms = amplitude / 2.0.squareRoot()
        #expect(abs(r.rmsAP - rms) / rms < 0.05, "\(r)")
        let path = 4 * amplitude * frequency * r.duration
        #expect(abs(r.pathLength - path) / path < 0.05, "path \(r.pathLength), analytic \(path)")
        #expect(abs(r.meanVelocity - 4 * amplitude * frequency) / (4 * amplitude * frequency) < 0.05)
        #expect(abs(r.meanFrequency - frequency) / frequency < 0.05, "\(r)")
        #expect(r.rmsML < 0.002 && r.ellipseArea95 > 0)
    }

    /// A still device: sway at the noise floor (±0.002 g uniform: 0.0012 g RMS before the
    /// low-pass, less after it).
    @Test func aStillDeviceSwaysAtItsNoiseFloor() throws {
        var sway = SwayAccumulator(rate: 100)
        var state: UInt64 = 7
        for _ in 0..<3000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let a = (Double(state >> 11) / Double(1 << 53) - 0.5) * 0.004
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let b = (Double(state >> 11) / Double(1 << 53) - 0.5) * 0.004
            sway.add(ap: a, ml: b)
        }
        let r = try #require(sway.result)
        #expect(r.rmsAP < 0.0012 && r.rmsML < 0.0012 && r.rmsAP > 0, "\(r)")
        #expect(r.ellipseArea95 < 1e-4, "\(r)")
    }

    @Test func theLowPassKeepsSlowSwayAndSettlesAtOnce() {
        var f = Biquad(lowPass: 3.5, rate: 100)
        // A constant input comes out unchanged from the first sample.
        #expect(abs(f.next(0.3) - 0.3) < 1e-12 && abs(f.next(0.3) - 0.3) < 1e-12)
        // Unit gain at 0.5 Hz (within 0.5 %), strong attenuation at 20 Hz.
        var slow = Biquad(lowPass: 3.5, rate: 100), fast = Biquad(lowPass: 3.5, rate: 100)
        var peakSlow = 0.0, peakFast = 0.0
        for i in 0..<2000 {
            let t = Double(i) / 100
            let s = slow.next(sin(2 * Double.pi * 0.5 * t)), q = fast.next(sin(2 * Double.pi * 20 * t))
            if i > 500 { peakSlow = max(peakSlow, s); peakFast = max(peakFast, q) }
        }
        #expect(abs(peakSlow - 1) < 0.005 && peakFast < 0.05, "slow \(peakSlow), fast \(peakFast)")
    }
}
