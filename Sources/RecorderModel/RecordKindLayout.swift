import Glibc

/// A kind's fields as the JSON-lines encoder writes them: each field's key as `,"key":`, where a
/// `Record` keeps its value, and the kind's fixed values as JSON text, in memory that lives as
/// long as the process (a schema is made once), so that the encoder copies them without
/// reference counting. Immutable after `init`, hence `@unchecked Sendable`.
struct RecordKindLayout: @unchecked Sendable {
    /// One field of the layout: where its value is, and its JSON text.
    struct Entry {
        var type: RecordField.ValueType
        var slot: Int
        /// `,"key":`
        var key: UnsafeBufferPointer<UInt8>
        /// A fixed value as JSON text (`"gap"`), nil for none.
        var constant: UnsafeBufferPointer<UInt8>?
    }

    let entries: UnsafeBufferPointer<Entry>
    /// The scalar slots, strings and lists of the kind's fields (a record's others are written
    /// after them).
    let scalarMask: UInt64
    let textMask: UInt32
    let listMask: UInt32

    init(_ members: [RecordKind.Member], schemaFields: [RecordField]) {
        var scalars: UInt64 = 0, texts: UInt32 = 0, lists: UInt32 = 0
        let entries = UnsafeMutableBufferPointer<Entry>.allocate(capacity: members.count)
        for (i, member) in members.enumerated() {
            var key: [UInt8] = [UInt8(ascii: ",")]
            JSONString.appendEscaped(member.field.key, to: &key)
            key.append(UInt8(ascii: ":"))
            let constant = member.constant.map { value -> UnsafeBufferPointer<UInt8> in
                var text: [UInt8] = []
                JSONString.appendEscaped(value, to: &text)
                return Self.immortal(text)
            }
            (entries.baseAddress! + i).initialize(to: Entry(type: member.field.type, slot: member.field.slot, key: Self.immortal(key), constant: constant))
            switch member.field.type.storage {
            case .scalar: scalars |= 1 << UInt64(member.field.slot)
            case .text: texts |= 1 << UInt32(member.field.slot)
            case .list: lists |= 1 << UInt32(member.field.slot)
            }
        }
        self.entries = UnsafeBufferPointer(entries)
        scalarMask = scalars
        textMask = texts
        listMask = lists
    }

    /// The entry of `field`'s key, or nil when the kind has no such field.
    func index(of key: String) -> Int? {
        let wanted = Array(",\"\(key)\":".utf8)
        return entries.firstIndex { $0.key.elementsEqual(wanted) }
    }

    static func immortal(_ bytes: [UInt8]) -> UnsafeBufferPointer<UInt8> {
        let memory = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = memory.initialize(from: bytes)
        return UnsafeBufferPointer(memory)
    }
}

/// The keys of a schema's fields for the decoder: by the length of the key, each compared with
/// `memcmp`, in memory that lives as long as the process (see `RecordKindLayout`).
struct RecordKeyTable: @unchecked Sendable {
    struct Entry {
        var key: UnsafeBufferPointer<UInt8>
        /// The field's index in the schema's `fields` (its bit in the decoder's mask).
        var index: Int
        var type: RecordField.ValueType
        var slot: Int
    }

    /// `byLength[n]`: the entries of keys of `n` bytes.
    let byLength: UnsafeBufferPointer<UnsafeBufferPointer<Entry>>

    init(_ fields: [RecordField]) {
        let longest = fields.map(\.key.utf8.count).max() ?? 0
        let table = UnsafeMutableBufferPointer<UnsafeBufferPointer<Entry>>.allocate(capacity: longest + 1)
        for length in 0...longest {
            let matching = fields.enumerated().filter { $0.element.key.utf8.count == length }
            let entries = UnsafeMutableBufferPointer<Entry>.allocate(capacity: matching.count)
            for (i, (index, field)) in matching.enumerated() {
                (entries.baseAddress! + i).initialize(to: Entry(key: RecordKindLayout.immortal(Array(field.key.utf8)), index: index,
                                                                type: field.type, slot: field.slot))
            }
            (table.baseAddress! + length).initialize(to: UnsafeBufferPointer(entries))
        }
        byLength = UnsafeBufferPointer(table)
    }

    /// The entry whose key is `key`'s bytes.
    @inline(__always)
    func entry(_ key: UnsafeBufferPointer<UInt8>) -> Entry? {
        guard key.count < byLength.count, let base = key.baseAddress else { return nil }
        for candidate in byLength[key.count] where memcmp(candidate.key.baseAddress!, base, key.count) == 0 { return candidate }
        return nil
    }
}
