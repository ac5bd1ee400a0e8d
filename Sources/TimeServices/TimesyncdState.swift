import FoundationEssentials
import RecorderModel
import RecorderSystemd

/// systemd-timesyncd's `org.freedesktop.timesync1.Manager` properties read (`ServerName`,
/// `ServerAddress`, `NTPMessage`: the last answer of its server), with the kernel's own flag
/// for whether the clock is synchronised (what timedated's `NTPSynchronized` reads). No I/O;
/// tested alone.
public enum TimesyncdState {
    /// The leap indicator's meaning (RFC 5905), in chrony's words.
    static let leapStatuses = ["Normal", "Insert second", "Delete second", "Not synchronised"]

    /// The state the `properties` (a `GetAll` answer) and `kernelSynchronised` say, at `checked`.
    public static func state(properties: [String: DBusValue], kernelSynchronised: Bool, checked: Date) throws(TimeServiceError) -> ClockSynchronisation {
        var state = ClockSynchronisation(source: .timesyncd, synchronised: kernelSynchronised, checked: checked)
        let name = properties["ServerName"]?.text ?? ""
        if !name.isEmpty {
            guard name.utf8.count <= 255, ControlCharacters.first(in: name) == nil else {
                throw TimeServiceError("timesyncd's ServerName is over 255 bytes or has a control character")
            }
            state.reference = name
        }
        // NTPMessage (uuuuittayttttbtt): leap, version, mode, stratum, precision, root delay and
        // dispersion (µs), reference ID, then the originate, receive, transmit and destination
        // times (µs of CLOCK_REALTIME), spike, packet count, jitter.
        guard let message = properties["NTPMessage"], case .structure(let fields) = message.unwrapped else { return state }
        guard fields.count == 15, let leap = fields[0].integer, let stratum = fields[3].integer,
              let delay = fields[5].integer, let dispersion = fields[6].integer,
              let originate = fields[8].integer, let receive = fields[9].integer, let transmit = fields[10].integer,
              let destination = fields[11].integer else {
            throw TimeServiceError("timesyncd's NTPMessage is not (uuuuittayttttbtt)")
        }
        // No answer from a server yet: all zero.
        guard transmit != 0, destination != 0 else { return state }
        guard (0...3).contains(leap), (0...16).contains(stratum) else {
            throw TimeServiceError("timesyncd's NTPMessage has leap \(leap) or stratum \(stratum) out of range")
        }
        state.leapStatus = leapStatuses[leap]
        state.stratum = stratum
        // The server's clock minus ours, (T2 − T1 + T3 − T4) / 2; ours minus the server's is its
        // negative. Each time is at most 2^63 µs: the differences are taken in Double.
        let serverAhead = ((Double(receive) - Double(originate)) + (Double(transmit) - Double(destination))) / 2 / 1e6
        guard serverAhead.isFinite, abs(serverAhead) <= ChronyTracking.largestSeconds else {
            throw TimeServiceError("timesyncd's NTPMessage times give an offset of \(serverAhead) s")
        }
        state.offset = -serverAhead
        state.estimatedError = abs(serverAhead) + Double(dispersion) / 1e6 + Double(delay) / 2e6
        if state.reference == nil, let address = properties["ServerAddress"], case .structure(let a) = address.unwrapped, a.count == 2,
           let bytes = a[1].byteArray {
            state.reference = bytes.count == 4 ? bytes.map(String.init).joined(separator: ".") : bytes.count == 16 ? Self.ipv6(bytes) : nil
        }
        return state
    }

    static func ipv6(_ bytes: [UInt8]) -> String {
        stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":")
    }
}
