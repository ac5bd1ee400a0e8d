extension JSONLinesEncoder {
    /// Appends any decoded record — a line read back for an export, a live tail — as `schema`
    /// writes its kind: the kind's fields in the kind's order, then any other field it carries in
    /// the schema's order (a record of no kind: all of them so), unset fields left out, every
    /// value as it was read (times too: shortest round-trip form). What the typed appenders
    /// write reads back and is written again byte for byte.
    public mutating func appendRecord(_ record: Record, schema: RecordSchema = .standard) {
        var first = true
        var written = Record.Presence()
        if let kind = schema.kindIndex(of: record) {
            let layout = schema.layouts[kind]
            appendFields(of: record, layout.entries, first: &first, written: &written, times: .asRead, constants: false)
            if record.presence.isWithin(layout) {
                appendStatic(first ? "{}\n" : "}\n")
                return
            }
        }
        appendFields(of: record, schema.allFields.entries, first: &first, written: &written, times: .asRead, constants: false)
        appendStatic(first ? "{}\n" : "}\n")
    }

    /// How a time field's value is written.
    enum TimeForm {
        /// To the nanosecond (`RecordScratch.putTime`): what recorders measured.
        case nanoseconds
        /// As any number (shortest round-trip form): a value read back.
        case asRead
    }

    /// Writes the fields of `entries` that `record` carries (a constant field always, when
    /// `constants`) and not in `written`: each key (`{` before the first, when `first`), then the
    /// value as its field's type has it. A number that is not finite is left out.
    mutating func appendFields(of record: Record, _ entries: UnsafeBufferPointer<RecordKindLayout.Entry>, first: inout Bool,
                               written: inout Record.Presence, times: TimeForm, constants: Bool) {
        for entry in entries {
            if constants, let constant = entry.constant {
                appendKey(entry.key, first: &first)
                bytes.append(contentsOf: constant)
                continue
            }
            switch entry.type.storage {
            case .scalar:
                let bit: UInt64 = 1 &<< UInt64(entry.slot)
                guard record.present & bit != 0, written.scalars & bit == 0 else { continue }
                written.scalars |= bit
                let value = record.scalars[entry.slot]
                guard value.isFinite else { continue }
                appendKey(entry.key, first: &first)
                switch entry.type {
                case .time where times == .nanoseconds: appendTime(value)
                case .integer: appendInteger(Int(exactly: value.rounded(.towardZero)) ?? (value < 0 ? .min : .max))
                case .boolean: appendStatic(value != 0 ? "true" : "false")
                default: appendNumber(value)
                }
            case .text:
                let bit: UInt32 = 1 &<< UInt32(entry.slot)
                guard written.texts & bit == 0, let text = record.texts[entry.slot] else { continue }
                written.texts |= bit
                appendKey(entry.key, first: &first)
                appendString(text)
            case .list:
                let bit: UInt32 = 1 &<< UInt32(entry.slot)
                guard written.lists & bit == 0, let numbers = record.lists[entry.slot] else { continue }
                written.lists |= bit
                appendKey(entry.key, first: &first)
                appendStatic("[")
                for (i, v) in numbers.enumerated() {
                    if i > 0 { appendStatic(",") }
                    appendNumber(v)
                }
                appendStatic("]")
            }
        }
    }

    /// `,"key":` (`{"key":` for the first).
    @inline(__always)
    mutating func appendKey(_ key: UnsafeBufferPointer<UInt8>, first: inout Bool) {
        if first {
            bytes.append(UInt8(ascii: "{"))
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: key.dropFirst()))
            first = false
        } else {
            bytes.append(contentsOf: key)
        }
    }

    /// Seconds to the nanosecond.
    mutating func appendTime(_ seconds: Double) {
        RecordScratch.with { w in
            w.putTime(seconds)
            w.flush(into: &bytes)
        }
    }
}

extension Record {
    /// Which slots of a record hold a value.
    struct Presence {
        var scalars: UInt64 = 0
        var texts: UInt32 = 0
        var lists: UInt32 = 0

        /// True when every value lies in `layout`'s fields.
        func isWithin(_ layout: RecordKindLayout) -> Bool {
            scalars & ~layout.scalarMask == 0 && texts & ~layout.textMask == 0 && lists & ~layout.listMask == 0
        }
    }

    /// The slots that hold a value.
    var presence: Presence {
        var p = Presence(scalars: present)
        for i in texts.indices where texts[i] != nil { p.texts |= 1 &<< UInt32(i) }
        for i in lists.indices where lists[i] != nil { p.lists |= 1 &<< UInt32(i) }
        return p
    }
}
