import RecorderJSON

/// The device kinds a program knows, for checking the `devices` entries of a configuration: the
/// registry the executable fills with its backends (recorderd: replay, gpsd, iio, alsa), so that
/// reading and checking a configuration links none of them. A program that opens no device
/// (recorderd-services) reads the file with no kinds: its device entries are then kept as they
/// are, unchecked.
public struct DeviceKinds: Sendable {
    /// One device kind: its name, the keys its entries may have, and the check of an entry.
    public struct Kind: Sendable {
        /// The value of an entry's `kind`.
        public var name: String
        /// The keys of its entries (with `kind` and `name`), to warn about unknown ones.
        public var keys: ConfigurationKeys
        /// The problems of an entry of this kind, each a path within the entry and the problem
        /// (`frequency: expected a frequency in Hz > 0 …`); relative files resolve against the
        /// base directory. Probes nothing.
        public var problems: @Sendable (_ entry: DeviceConfiguration, _ baseDirectory: String) -> [String]

        public init(name: String, keys: ConfigurationKeys,
                    problems: @escaping @Sendable (_ entry: DeviceConfiguration, _ baseDirectory: String) -> [String]) {
            self.name = name
            self.keys = keys
            self.problems = problems
        }
    }

    /// The kinds, in the order problems list them.
    public private(set) var kinds: [Kind]

    /// A registry of `kinds` (none: entries are not checked).
    public init(_ kinds: [Kind] = []) {
        self.kinds = kinds
    }

    /// No kinds: device entries are kept unchecked (a program that opens no device).
    public static let unchecked = DeviceKinds()

    /// Whether device entries are checked at all.
    public var checksEntries: Bool { !kinds.isEmpty }

    /// Adds a kind (a later one of the same name replaces it).
    public mutating func register(_ kind: Kind) {
        kinds.removeAll { $0.name == kind.name }
        kinds.append(kind)
    }

    /// The kind named `name`.
    public func kind(named name: String) -> Kind? {
        kinds.first { $0.name == name }
    }

    /// Every device entry of `configuration` that its kind refuses, or whose kind is unknown, each
    /// with its JSON path (`devices[2].frequency: …`); nothing when no kind is registered.
    public func problems(_ configuration: DaemonConfiguration, baseDirectory: String, skipping: Set<Int> = []) -> [String] {
        guard checksEntries else { return [] }
        var problems: [String] = []
        for (index, device) in configuration.devices.enumerated() where !skipping.contains(index) {
            guard let kind = kind(named: device.kind) else {
                problems.append("devices[\(index)].kind: unknown kind \(device.kind.debugDescription): expected one of "
                    + kinds.map(\.name).joined(separator: ", "))
                continue
            }
            problems += kind.problems(device, baseDirectory).map { "devices[\(index)].\($0)" }
        }
        return problems
    }

    /// The keys of each kind's entries (for `DaemonConfiguration.keys(devices:)`).
    public var keys: [String: ConfigurationKeys] {
        Dictionary(kinds.map { ($0.name, $0.keys) }, uniquingKeysWith: { _, later in later })
    }
}
