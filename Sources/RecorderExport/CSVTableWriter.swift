import RecorderModel

/// Writes one recorder's table: the header, then a row per sample (motion: the records of one
/// uptime, one per sensor type, joined).
struct CSVTableWriter {
    private let file: OutputFile
    private let layout: CSVLayout
    private let zero: Double
    /// Motion: the row being joined — its uptime, step path and values by column.
    private var rowUptime: Double?
    private var rowStepPath: String?
    private var values: [Double?]
    private var filled: [Bool]
    /// The line being written: numbers in shortest round-trip form, written without a String
    /// each (the JSON-lines encoder's number writer; integers without ".0").
    private var line = JSONLinesEncoder(reservingCapacity: 1024)
    private(set) var rows = 0

    init(path: String, layout: CSVLayout, zero: Double) throws(ExportError) {
        file = try OutputFile(path: path)
        self.layout = layout
        self.zero = zero
        values = Array(repeating: nil, count: layout.columns.count)
        filled = Array(repeating: false, count: layout.motion.count)
        try file.append((["time", "uptime", "stepPath"] + layout.columns.map(\.name)).joined(separator: ",") + "\n")
    }

    mutating func add(_ r: Record) throws(ExportError) {
        switch layout.kind {
        case .motion:
            guard let type = r.sensorType, let index = layout.motionTypes.firstIndex(of: type) else { return }
            if rowUptime != r.uptime || filled[index] { try endRow() }
            rowUptime = r.uptime
            rowStepPath = r.stepPath
            filled[index] = true
            let scale = layout.motionScales[index]
            for column in layout.axisStart[index]..<layout.axisStart[index + 1] {
                values[column] = r.number(layout.axes[column]).map { $0 * scale }
            }
        case .table, .other:
            try row(r)
        }
    }

    /// A table's row: each column's field as its type has it.
    private mutating func row(_ r: Record) throws(ExportError) {
        line.removeAll()
        appendPrefix(uptime: r.uptime, stepPath: r.stepPath)
        for column in layout.tableColumns {
            line.appendStatic(",")
            switch r[column.field] {
            case .number(let v)?: line.appendNumber(v)
            case .integer(let v)?: line.appendInteger(v)
            case .boolean(let v)?: line.appendStatic(v ? "true" : "false")
            case .string(let s)?: Self.appendField(s, to: &line)
            case .numbers(let values)?:
                for (i, v) in values.enumerated() {
                    if i > 0 { line.appendStatic(" ") }
                    line.appendNumber(v)
                }
            case nil: break
            }
        }
        line.appendStatic("\n")
        try file.append(line.bytes)
        rows += 1
    }

    private mutating func appendPrefix(uptime: Double?, stepPath: String?) {
        if let uptime {
            line.appendNumber(uptime - zero)
            line.appendStatic(",")
            line.appendNumber(uptime)
        } else {
            line.appendStatic(",")
        }
        line.appendStatic(",")
        if let stepPath { Self.appendField(stepPath, to: &line) }
    }

    private mutating func endRow() throws(ExportError) {
        guard rowUptime != nil else { return }
        line.removeAll()
        appendPrefix(uptime: rowUptime, stepPath: rowStepPath)
        for v in values {
            line.appendStatic(",")
            if let v { line.appendNumber(v) }
        }
        line.appendStatic("\n")
        try file.append(line.bytes)
        rows += 1
        rowUptime = nil
        for i in values.indices { values[i] = nil }
        for i in filled.indices { filled[i] = false }
    }

    mutating func close() throws(ExportError) {
        try endRow()
        try file.close()
    }

    /// The events table's columns after `time,uptime,stepPath`: the fields of markers, gaps,
    /// discarded spans and errors (`RecordSchema.eventKinds` and the marker), in their order.
    static func eventColumns(_ schema: RecordSchema) -> [RecordField] {
        var columns: [RecordField] = []
        for field in (schema.eventKinds + [RecordKind.marker]).flatMap(\.fields)
        where ![RecordField.uptime, .timestamp, .stepPath].contains(field) && !columns.contains(field) {
            columns.append(field)
        }
        return columns
    }

    /// The events table's header line.
    static func eventHeader(_ schema: RecordSchema) -> String {
        (["time", "uptime", "stepPath"] + eventColumns(schema).map(\.key)).joined(separator: ",") + "\n"
    }

    /// A line of the events table (a marker's `event` is `marker`).
    static func eventLine(_ r: Record, zero: Double, schema: RecordSchema) -> String {
        var fields: [String] = []
        fields.append(r.uptime.map { ($0 - zero).description } ?? "")
        fields.append(r.uptime.map(\.description) ?? "")
        fields.append(r.stepPath ?? "")
        for field in eventColumns(schema) {
            if field == .event, r.event == nil {
                fields.append(r.isMarker ? "marker" : "")
                continue
            }
            switch r[field] {
            case .number(let v)?: fields.append(v.description)
            case .integer(let v)?: fields.append(String(v))
            case .boolean(let v)?: fields.append(v ? "true" : "false")
            case .string(let s)?: fields.append(s)
            case .numbers(let v)?: fields.append(v.map(\.description).joined(separator: " "))
            case nil: fields.append("")
            }
        }
        var bytes: [UInt8] = []
        for (i, f) in fields.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            appendField(f, to: &bytes)
        }
        return String(decoding: bytes, as: UTF8.self) + "\n"
    }

    /// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
    static func appendField(_ s: String, to bytes: inout [UInt8]) {
        let needsQuotes = s.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }
        guard needsQuotes else { return bytes.append(contentsOf: s.utf8) }
        bytes.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            if b == UInt8(ascii: "\"") { bytes.append(b) }
            bytes.append(b)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    static func appendField(_ s: String, to line: inout JSONLinesEncoder) {
        var bytes: [UInt8] = []
        if !s.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }) {
            return line.appendRaw(s.utf8)
        }
        appendField(s, to: &bytes)
        line.appendRaw(bytes)
    }
}
