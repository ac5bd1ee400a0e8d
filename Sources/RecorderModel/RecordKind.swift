/// A kind of record — a motion sample, a location fix, a gap, a walking bout …: the fields it
/// carries, in the order they are written, and how a record is known to be of it (its `event`,
/// its `sensorType`, or a field only it has).
///
/// The standard kinds are in `RecordKind+Standard.swift`; the JSON-lines encoder writes each
/// kind's fields in this order, the decoder reads what the schema's fields are, and the exports
/// take their columns and schemas from the kinds.
public struct RecordKind: Sendable {
    /// One field of the kind, with its fixed value where the kind has one (`"event": "gap"`,
    /// `"unit": "dBFS"`).
    public struct Member: Sendable {
        public var field: RecordField
        public var constant: String?

        public init(_ field: RecordField, constant: String? = nil) {
            self.field = field
            self.constant = constant
        }
    }

    /// Which `sensorType` values a kind's records carry.
    public enum SensorTypes: Sendable, Equatable {
        /// None: the record has no `sensorType`.
        case none
        /// Any (a gap of any sensor's samples).
        case any
        /// One of these.
        case only([String])

        func admits(_ type: String?) -> Bool {
            switch self {
            case .none: type == nil
            case .any: type != nil
            case .only(let types): type.map(types.contains) ?? false
            }
        }
    }

    /// The kind's name (`motion`, `gap`).
    public let name: String
    /// Its fields in the order they are written, the times and step path first.
    public let members: [Member]
    public let sensorTypes: SensorTypes
    /// The value of `event` its records carry (nil: they have none).
    public let event: String?
    /// For a kind with neither `event` nor `sensorType`: the field that tells it apart.
    public let distinguishedBy: RecordField?

    public init(_ name: String, sensorTypes: SensorTypes, event: String? = nil, distinguishedBy: RecordField? = nil, _ members: [Member]) {
        self.name = name
        self.members = members
        self.sensorTypes = sensorTypes
        self.event = event
        self.distinguishedBy = distinguishedBy
    }

    /// The fields, in order.
    public var fields: [RecordField] { members.map(\.field) }

    /// The fields that vary from record to record: not the times, the step path, `event`,
    /// `sensorType`, or a field with a fixed value.
    public var valueFields: [RecordField] {
        members.filter { $0.constant == nil && !Self.framing.contains($0.field) }.map(\.field)
    }

    /// What every record says about itself rather than its measurement.
    static let framing: Set<RecordField> = [.uptime, .timestamp, .stepPath, .event, .sensorType]

    /// True when `record` is of this kind.
    public func matches(_ record: Record) -> Bool {
        guard record.event == event, sensorTypes.admits(record.sensorType) else { return false }
        if let distinguishedBy { return record.has(distinguishedBy) }
        return true
    }

    /// A copy with `field` after `member` (at the end when nil): what a schema that adds a
    /// field makes of its kind.
    func adding(_ field: RecordField, after member: RecordField?) -> RecordKind {
        var members = self.members
        let index = member.flatMap { m in members.firstIndex { $0.field == m }.map { $0 + 1 } } ?? members.endIndex
        members.insert(Member(field), at: index)
        return RecordKind(name, sensorTypes: sensorTypes, event: event, distinguishedBy: distinguishedBy, members)
    }
}
