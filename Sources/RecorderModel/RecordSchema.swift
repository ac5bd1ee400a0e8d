/// Every record kind and field of recorderd's JSON-lines records, in one place: what the
/// encoder writes (`JSONLinesEncoder`), what its decoder reads (`JSONLinesDecoder`, `Record`'s
/// `Codable`), and what the exports make columns and schemas of. A field added to a kind here
/// appears in all of them.
///
/// `standard` is recorderd's; a schema that adds a field (`adding`) is what a reader or writer of
/// an extended record is given (the tests' fixture kind).
public struct RecordSchema: Sendable {
    /// The kinds, in the order a record is matched against them.
    public let kinds: [RecordKind]
    /// Every field of every kind, each once: the kinds' fields in order of first appearance (the
    /// order a record of no kind is written in).
    public let fields: [RecordField]
    /// The fields' keys, for the decoder.
    let keys: RecordKeyTable
    /// Each kind as the encoder writes it, in the order of `kinds`.
    let layouts: [RecordKindLayout]
    /// `fields` as the encoder writes them: a record of no kind, and a kind's record's fields
    /// that are not its kind's.
    let allFields: RecordKindLayout

    /// recorderd's records (`RecordKind.Standard`'s kinds, in that order).
    public static let standard = RecordSchema(kinds: RecordKind.Standard.allCases.map(\.kind))

    /// A schema of `kinds`. Their fields' slots must be distinct within each storage class and
    /// within its capacity (`RecordStorage`); a key names one field.
    public init(kinds: [RecordKind]) {
        self.kinds = kinds
        var fields: [RecordField] = []
        for field in kinds.flatMap(\.fields) where !fields.contains(where: { $0.key == field.key }) { fields.append(field) }
        precondition(fields.count <= 64, "a record has at most 64 fields (the decoder's mask)")
        var used: [RecordStorage.Class: Set<Int>] = [:]
        for field in fields {
            let capacity = switch field.type.storage {
            case .scalar: RecordStorage.scalarSlots
            case .text: RecordStorage.textSlots
            case .list: RecordStorage.listSlots
            }
            precondition((0..<capacity).contains(field.slot), "\(field.key): slot \(field.slot) is outside its storage (\(capacity))")
            precondition(used[field.type.storage, default: []].insert(field.slot).inserted, "\(field.key): slot \(field.slot) is taken")
        }
        for kind in kinds {
            for member in kind.members {
                precondition(fields.first { $0.key == member.field.key }.map { $0.type == member.field.type && $0.slot == member.field.slot } ?? false,
                             "\(kind.name).\(member.field.key): one key, one field")
            }
        }
        self.fields = fields
        keys = RecordKeyTable(fields)
        layouts = kinds.map { RecordKindLayout($0.members, schemaFields: fields) }
        allFields = RecordKindLayout(fields.map { RecordKind.Member($0) }, schemaFields: fields)
    }

    /// The kind of `record`: the first whose `event`, `sensorType` and distinguishing field it
    /// has; nil for a record of no kind (a newer recorderd's, or a malformed one).
    public func kind(of record: Record) -> RecordKind? {
        kindIndex(of: record).map { kinds[$0] }
    }

    func kindIndex(of record: Record) -> Int? {
        kinds.firstIndex { $0.matches(record) }
    }

    /// The kind named `name`.
    public func kind(named name: String) -> RecordKind? {
        kinds.first { $0.name == name }
    }

    /// The kinds of a recorder's records of `sensorType`: those that carry it by name (not the
    /// gaps and discarded spans any sensor has), or else the kind of that name whose records carry
    /// no sensor type (a microphone's `soundLevel`).
    public func kinds(recording sensorType: String) -> [RecordKind] {
        let named = kinds.filter { if case .only(let types) = $0.sensorTypes { types.contains(sensorType) } else { false } }
        return named.isEmpty ? kinds.filter { $0.name == sensorType && $0.sensorTypes == .none && $0.event == nil } : named
    }

    /// The sensor type a record is of: its `sensorType`, or its kind's name for a kind that
    /// records one without saying so (`soundLevel`); nil for a marker or an error.
    public func recordedType(of record: Record) -> String? {
        if let type = record.sensorType { return type }
        guard let kind = kind(of: record), kind.event == nil, kind.name != RecordKind.marker.name else { return nil }
        return kind.name
    }

    /// The kinds of what happens to a recording rather than in it: gaps, discarded spans, errors
    /// (events of no sensor type of their own).
    public var eventKinds: [RecordKind] {
        kinds.filter { kind in
            guard kind.event != nil else { return false }
            if case .only = kind.sensorTypes { return false }
            return true
        }
    }

    /// The field whose key is `key`.
    public func field(_ key: String) -> RecordField? {
        fields.first { $0.key == key }
    }

    /// This schema with a field of `key` added to the kind `kind`, after `member` (at its end
    /// when nil), in the next free slot of its type's storage: how a reader and a writer of
    /// records with one more field are made (the tests' fixture kind).
    public func adding(_ key: StaticString, _ type: RecordField.ValueType, unit: StaticString? = nil, to kind: String,
                       after member: RecordField? = nil) -> (schema: RecordSchema, field: RecordField) {
        precondition(field(key.description) == nil, "\(key) is a field already")
        let taken = Set(fields.filter { $0.type.storage == type.storage }.map(\.slot))
        let slot = (0...).first { !taken.contains($0) }!
        let field = RecordField(key, type, unit: unit, slot: slot)
        let kinds = self.kinds.map { $0.name == kind ? $0.adding(field, after: member) : $0 }
        precondition(kinds.contains { $0.fields.contains(field) }, "no kind named \(kind)")
        return (RecordSchema(kinds: kinds), field)
    }
}
