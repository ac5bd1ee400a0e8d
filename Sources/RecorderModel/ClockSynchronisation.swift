import FoundationEssentials
import Glibc

/// The wall clock's synchronisation at one moment, as the machine's time service reported it:
/// data from many Pis compare only when their clocks were right. Every task result records it at
/// the run's start and end; `daemon.status` and the fleet status carry the latest.
public struct ClockSynchronisation: Sendable, Equatable, Codable {
    /// Where the state came from.
    public enum Source: String, Sendable, Codable, CaseIterable {
        /// chronyd, asked with `chronyc -c tracking`.
        case chrony
        /// systemd-timesyncd, asked over D-Bus (with the kernel's own synchronisation flag).
        case timesyncd
        /// No time service answered (`error` says what was tried).
        case unknown
    }

    public var source: Source
    /// Whether the clock follows a reference now (nil when unknown).
    public var synchronised: Bool?
    /// Seconds the system clock is ahead of the reference (negative: behind).
    public var offset: Double?
    /// Seconds the clock may be off at most, by the service's estimate (chrony's bound: |offset|
    /// + root dispersion + half the root delay).
    public var estimatedError: Double?
    /// The reference's NTP stratum (1: a primary clock; 16: unsynchronised).
    public var stratum: Int?
    /// The server followed: its name or address, or its reference ID when it has neither
    /// (`LOCAL` clocks).
    public var reference: String?
    /// The service's leap status (chrony: `Normal`, `Insert second`, `Delete second`, `Not
    /// synchronised`).
    public var leapStatus: String?
    /// When the state was read (this machine's clock).
    public var checked: Date
    /// Why the state is unknown, or what went wrong reading it.
    public var error: String?

    public init(source: Source, synchronised: Bool? = nil, offset: Double? = nil, estimatedError: Double? = nil, stratum: Int? = nil,
                reference: String? = nil, leapStatus: String? = nil, checked: Date, error: String? = nil) {
        self.source = source
        self.synchronised = synchronised
        self.offset = offset
        self.estimatedError = estimatedError
        self.stratum = stratum
        self.reference = reference
        self.leapStatus = leapStatus
        self.checked = checked
        self.error = error
    }

    /// An unknown state, with why.
    public static func unknown(checked: Date, error: String) -> ClockSynchronisation {
        ClockSynchronisation(source: .unknown, checked: checked, error: error)
    }

    /// One line for people: `synchronised to 192.0.2.1 (chrony, stratum 2, offset +0.000012 s ± 0.0031 s)`.
    public var summary: String {
        guard source != .unknown else { return "unknown (\(error ?? "no time service answered"))" }
        var facts = [source.rawValue]
        if let stratum { facts.append("stratum \(stratum)") }
        if let offset { facts.append("offset \(offset >= 0 ? "+" : "")\(Self.seconds(offset))" + (estimatedError.map { " ± \(Self.seconds($0))" } ?? "")) }
        let state = synchronised == true ? "synchronised" + (reference.map { " to \($0)" } ?? "") : "NOT synchronised"
        return "\(state) (\(facts.joined(separator: ", ")))"
    }

    static func seconds(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e6 else { return "\(value) s" }
        let magnitude = abs(value)
        let digits = magnitude >= 1 ? 3 : magnitude >= 0.001 ? 6 : 9
        var text = String(Int((magnitude * pow(10, Double(digits))).rounded()))
        while text.count <= digits { text = "0" + text }
        text.insert(".", at: text.index(text.endIndex, offsetBy: -digits))
        return (value < 0 ? "-" : "") + text + " s"
    }
}
