import RecorderModel

/// The columns of one recorder's CSV, taken from the record kinds of its sensor types
/// (`RecordSchema`): which values of a record go where, in which unit.
///
/// Motion is one row per instant joining the sensor types' axes (`acc_x`, `gyr_x` …: the
/// kind's unitless numbers), in the SI units mobgap reads; every other recorder's table has a
/// column per field of its kinds (the times, the step path and fixed values aside), in the kinds'
/// order, and a row per record of those kinds.
struct CSVLayout {
    /// A motion sensor type's columns: its kind's axes times `scale`.
    struct Vector {
        var sensorType: String
        var prefix: String
        var scale: Double
        var unit: String
        /// The record's axes (`x`, `y`, `z`, and an attitude's `w`).
        var axes: [RecordField] = []
    }

    /// A column of a non-motion table: the record's field, and the unit the README names.
    struct Column {
        var field: RecordField
        var unit: String
    }

    enum Kind { case motion, table, other }

    static let gravity = 9.80665
    static let degreesPerRadian = 180 / Double.pi

    /// Motion sensor types in column order, with their SI units (mobgap's m/s² and deg/s).
    static let vectors: [Vector] = [
        Vector(sensorType: "accelerometer", prefix: "acc", scale: gravity, unit: "m/s^2"),
        Vector(sensorType: "gyro", prefix: "gyr", scale: degreesPerRadian, unit: "deg/s"),
        Vector(sensorType: "magnetometer", prefix: "mag", scale: 1, unit: "uT"),
        Vector(sensorType: "attitude", prefix: "att", scale: 1, unit: "unit quaternion"),
        Vector(sensorType: "gravity", prefix: "grav", scale: gravity, unit: "m/s^2"),
        Vector(sensorType: "userAcceleration", prefix: "uacc", scale: gravity, unit: "m/s^2"),
        Vector(sensorType: "rotationRate", prefix: "rot", scale: degreesPerRadian, unit: "deg/s"),
        Vector(sensorType: "magneticField", prefix: "mfield", scale: 1, unit: "uT"),
    ]

    let kind: Kind
    /// For motion: the vectors present, in column order, and the first value column of each.
    let motion: [Vector]
    let motionColumns: [Int]
    /// For motion, what a row's join reads of each vector without copying it: its sensor type,
    /// its scale, and its axes (`axes[axisStart[i]..<axisStart[i + 1]]`).
    let motionTypes: [String]
    let motionScales: [Double]
    let axes: [RecordField]
    let axisStart: [Int]
    /// For a table: its columns, and the kinds of its rows.
    let tableColumns: [Column]
    let rowKinds: [RecordKind]
    let schema: RecordSchema

    init(units: [String: String], schema: RecordSchema = .standard) {
        self.schema = schema
        let types = Set(units.keys)
        motion = Self.vectors.filter { types.contains($0.sensorType) }.map { vector in
            var v = vector
            // A vector's axes: its kind's numbers without a unit of their own.
            v.axes = (schema.kinds(recording: v.sensorType).first?.valueFields ?? []).filter { $0.type == .number && $0.unit == nil }
            return v
        }
        var column = 0
        motionColumns = motion.map { v in
            defer { column += v.axes.count }
            return column
        }
        motionTypes = motion.map(\.sensorType)
        motionScales = motion.map(\.scale)
        axes = motion.flatMap(\.axes)
        axisStart = motionColumns + [column]
        // The table's kinds: those of the recorder's type whose kinds come first in the schema.
        let candidates = types.map { schema.kinds(recording: $0) }.filter { !$0.isEmpty }
        let place = { (kinds: [RecordKind]) in schema.kinds.firstIndex { $0.name == kinds[0].name } ?? .max }
        let kinds = candidates.min { place($0) < place($1) } ?? []
        if !motion.isEmpty {
            kind = .motion
            rowKinds = []
            tableColumns = []
        } else if !kinds.isEmpty {
            kind = .table
            rowKinds = kinds
            tableColumns = Self.columns(of: kinds)
        } else {
            kind = .other
            rowKinds = []
            tableColumns = ([RecordField.sensorType] + RecordKind.motion.valueFields).map { Column(field: $0, unit: "") }
        }
    }

    /// A table's columns: its kinds' fields in order of first appearance, without the times and
    /// step path, and without a field whose value is fixed the same in every kind that has it
    /// (`sensorType` `step`); a field fixed differently by each (`event`: `step` or `bout`) is
    /// a column of those values.
    static func columns(of kinds: [RecordKind]) -> [Column] {
        var columns: [Column] = []
        for member in kinds.flatMap(\.members) where ![RecordField.uptime, .timestamp, .stepPath].contains(member.field)
            && !columns.contains(where: { $0.field == member.field }) {
            let values = kinds.flatMap(\.members).filter { $0.field == member.field }.map(\.constant)
            if values.allSatisfy({ $0 != nil }) {
                let distinct = values.compactMap { $0 }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
                guard distinct.count > 1 else { continue }
                columns.append(Column(field: member.field, unit: distinct.joined(separator: "|")))
            } else if member.field == .sensorType {
                continue
            } else {
                columns.append(Column(field: member.field, unit: unit(of: member.field)))
            }
        }
        return columns
    }

    /// What the README says of a field's values.
    static func unit(of field: RecordField) -> String {
        switch field.type {
        case .boolean: return "true|false"
        case .numbers: return (field.unit ?? "") + ", space-separated"
        case .string: return field.values ?? ""
        default: return field.unit ?? ""
        }
    }

    /// The header line's columns after `time,uptime,stepPath`, with units for the README.
    var columns: [(name: String, unit: String)] {
        switch kind {
        case .motion: motion.flatMap { v in v.axes.map { ("\(v.prefix)_\($0.key)", v.unit) } }
        case .table, .other: tableColumns.map { ($0.field.key, $0.unit) }
        }
    }

    /// True when `record` is a row of this layout's table (not an event: marker, gap, error).
    func isRow(_ r: Record) -> Bool {
        if kind == .table { return rowKinds.contains { $0.matches(r) } }
        return r.isSample
    }
}
