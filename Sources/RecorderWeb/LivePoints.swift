import FoundationEssentials
import Glibc
import RecorderModel

/// The live plot's messages as JSON text, written directly (one string a notification, no
/// encoder per record): the points a plot draws.
enum LivePoints {
    /// `{"type":"data","points":[["accelerometer",uptime,x,y,z],["gap",uptime],…]}`: one array a
    /// record, the values a plot draws (motion axes, sound level average and peak, GPS speed and
    /// accuracy, heart rate); gaps and gait steps as markers. Numbers with 6 decimals at most (µs for the
    /// uptime), written digit by digit into one buffer.
    static func encode(_ records: [Record]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(32 + records.count * 72)
        out.append(contentsOf: #"{"type":"data","points":["#.utf8)
        var first = true
        for r in records {
            guard let uptime = r.uptime else { continue }
            let name: String
            var values: (Double?, Double?, Double?, Double?) = (nil, nil, nil, nil)
            var count = 0
            if r.isGap {
                name = "gap"
            } else if r.event == "step" {
                name = "step"
            } else if let type = r.sensorType, r.event == nil, let known = SensorType(rawValue: type) {
                switch known {
                case .location: (values.0, values.1, count) = (r.speed, r.horizontalAccuracy, 2)
                case .soundLevel: (values.0, values.1, count) = (r.average, r.peak, 2)
                // A reading without skin contact is no heart rate: a point without a value.
                case .heartRate: (values.0, count) = (r.heartRateReading.map(Double.init), 1)
                case .attitude: (values, count) = ((r.x, r.y, r.z, r.w), 4)
                default: (values.0, values.1, values.2, count) = (r.x, r.y, r.z, 3)
                }
                name = known.rawValue
            } else {
                continue
            }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: #"[""#.utf8)
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: #"","#.utf8)
            append(uptime, to: &out)
            for index in 0..<count {
                out.append(UInt8(ascii: ","))
                let value = index == 0 ? values.0 : index == 1 ? values.1 : index == 2 ? values.2 : values.3
                if let value { append(value, to: &out) } else { out.append(contentsOf: "null".utf8) }
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: "]}".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// `value` as a JSON number rounded to 6 decimals, trailing zeros left out; `null` when not
    /// finite; beyond ±10¹² (never a plotted value) Swift's own shortest form.
    static func append(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite else { return out.append(contentsOf: "null".utf8) }
        guard abs(value) < 1e12 else { return out.append(contentsOf: "\(value)".utf8) }
        var n = Int64((value * 1e6).rounded())
        if n < 0 {
            out.append(UInt8(ascii: "-"))
            n = -n
        }
        appendDigits(n / 1_000_000, to: &out)
        var fraction = n % 1_000_000
        guard fraction != 0 else { return }
        out.append(UInt8(ascii: "."))
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        var scratch: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (48, 48, 48, 48, 48, 48)
        withUnsafeMutableBytes(of: &scratch) { buffer in
            var i = digits - 1
            while fraction > 0 {
                buffer[i] = UInt8(48 + fraction % 10)
                fraction /= 10
                i -= 1
            }
            out.append(contentsOf: buffer.prefix(digits))
        }
    }

    static func appendDigits(_ value: Int64, to out: inout [UInt8]) {
        guard value >= 10 else { return out.append(UInt8(48 + value)) }
        appendDigits(value / 10, to: &out)
        out.append(UInt8(48 + value % 10))
    }

    /// `value` as JSON text (tests and messages).
    static func number(_ value: Double) -> String {
        var out: [UInt8] = []
        append(value, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
