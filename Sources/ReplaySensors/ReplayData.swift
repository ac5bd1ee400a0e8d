import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderRuntime

/// The samples of a replay file, converted to file units, one row per sample instant (uptimes
/// are assigned at playback).
///
/// Stored as three Doubles per sensor type and row (NaN where a JSONL row lacks a type): 48 bytes
/// a row for an accelerometer and a gyro, where a `MotionFrame` takes about 250 — the example
/// configuration's 13,759-row walk is held by the daemon for its whole life.
public struct ReplayData: Sendable {
    public let sensorTypes: [SensorType]
    /// Rows per second, when the file tells (JSONL uptimes).
    public var fileRate: Double?
    /// The rows' vectors: row r, type t (index in `sensorTypes`), axis a at `(r × types + t) × 3 + a`.
    var values: [Double]

    init(sensorTypes: [SensorType], fileRate: Double?, values: [Double]) {
        self.sensorTypes = sensorTypes
        self.fileRate = fileRate
        self.values = values
    }

    /// Rows.
    public var count: Int { sensorTypes.isEmpty ? 0 : values.count / (3 * sensorTypes.count) }

    /// Row `row` as a frame (uptime 0).
    public func frame(at row: Int) -> MotionFrame {
        var frame = MotionFrame(uptime: 0)
        let base = row * 3 * sensorTypes.count
        for (t, type) in sensorTypes.enumerated() {
            let i = base + 3 * t
            guard !values[i].isNaN else { continue }
            frame.setRaw(Vector3(x: values[i], y: values[i + 1], z: values[i + 2]), for: type)
        }
        return frame
    }

    /// Every row as a frame.
    public var frames: [MotionFrame] { (0..<count).map(frame(at:)) }

    /// Errors reading a replay file.
    public struct LoadError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Loads a CSV (header line; columns from the configuration) or a recorderd JSONL file, its
    /// vectors turned into the device's axes by the configuration's `mountMatrix`.
    public static func load(path: String, configuration: ReplayConfiguration) throws(LoadError) -> ReplayData {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw LoadError(description: "cannot read \(path): \(ErrorText.reason(of: error))")
        }
        var loaded: ReplayData
        if path.hasSuffix(".jsonl") || path.hasSuffix(".ndjson") {
            loaded = try loadJSONLines(data, path: path)
        } else {
            loaded = try loadCSV(data, path: path, configuration: configuration)
        }
        if let mount = configuration.mountMatrix, !mount.isIdentity {
            for i in stride(from: 0, to: loaded.values.count, by: 3) where !loaded.values[i].isNaN {
                let v = mount.apply(Vector3(x: loaded.values[i], y: loaded.values[i + 1], z: loaded.values[i + 2]))
                (loaded.values[i], loaded.values[i + 1], loaded.values[i + 2]) = (v.x, v.y, v.z)
            }
        }
        return loaded
    }

    /// The CSV's rows, read as bytes: a replay device's file is read before the daemon reports
    /// ready, so a megabyte of it must take milliseconds (`String` splitting and Foundation's
    /// trimming took 270 ms for the 1.7 MB example walk). Lines end with LF or CRLF; blank lines
    /// are skipped; fields are trimmed of spaces and tabs; a number is read exactly
    /// (`JSONNumber.parse`), or by `Double(_:)` for forms JSON lacks (`+1`, `.5`),
    /// and must be finite.
    static func loadCSV(_ data: Data, path: String, configuration: ReplayConfiguration) throws(LoadError) -> ReplayData {
        let bytes = [UInt8](data)
        guard String(validating: bytes, as: UTF8.self) != nil else { throw LoadError(description: "\(path): not UTF-8 text") }
        return try bytes.withUnsafeBufferPointer { (all) throws(LoadError) -> ReplayData in
            var lines = CSVLines(all)
            guard let header = lines.next() else { throw LoadError(description: "\(path): empty file") }
            let names = String(decoding: header.text, as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingWhitespace() }
            let types = SensorType.motionTypes.filter { configuration.columns[$0] != nil }
            // For each column of the file: the (type, axis) pairs it feeds (one column may feed several).
            var slots = [[(type: Int, axis: Int)]](repeating: [], count: names.count)
            var factors: [Double] = []
            for (t, type) in types.enumerated() {
                for (axis, column) in configuration.columns[type]!.enumerated() where axis < 3 {
                    guard let i = names.firstIndex(of: column) else {
                        throw LoadError(description: "\(path): no column \(column.debugDescription) (columns: \(names.joined(separator: ",")))")
                    }
                    slots[i].append((t, axis))
                }
                factors.append(configuration.factor(for: type))
            }
            let needed = slots.lastIndex { !$0.isEmpty }.map { $0 + 1 } ?? 0
            var values: [Double] = []
            values.reserveCapacity(all.count / max(1, header.text.count) * types.count * 3)
            var row = [Double](repeating: 0, count: types.count * 3)
            while let line = lines.next() {
                var column = 0
                var start = 0
                let text = line.text
                while column < needed {
                    var end = start
                    while end < text.count, text[end] != UInt8(ascii: ",") { end += 1 }
                    if !slots[column].isEmpty {
                        guard let value = Self.number(UnsafeBufferPointer(rebasing: text[start..<end])) else {
                            throw LoadError(description: "\(path):\(line.number): expected a finite number in column \(names[column])")
                        }
                        for slot in slots[column] {
                            let factor = factors[slot.type]
                            row[slot.type * 3 + slot.axis] = factor == 1 ? value : value * factor
                        }
                    }
                    column += 1
                    if end == text.count, column < needed {
                        throw LoadError(description: "\(path):\(line.number): expected a number in column \(names[column]); the row has \(column) columns")
                    }
                    start = end + 1
                }
                values.append(contentsOf: row)
            }
            guard !values.isEmpty else { throw LoadError(description: "\(path): no samples") }
            return ReplayData(sensorTypes: types, fileRate: nil, values: values)
        }
    }

    /// A field's number, trimmed of spaces and tabs; nil unless finite.
    static func number(_ field: UnsafeBufferPointer<UInt8>) -> Double? {
        var lower = 0, upper = field.count
        while lower < upper, field[lower] == UInt8(ascii: " ") || field[lower] == UInt8(ascii: "\t") { lower += 1 }
        while upper > lower, field[upper - 1] == UInt8(ascii: " ") || field[upper - 1] == UInt8(ascii: "\t") { upper -= 1 }
        let text = UnsafeBufferPointer(rebasing: field[lower..<upper])
        if let value = JSONNumber.parse(text) { return value }
        guard text.count < 64, let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    static func loadJSONLines(_ data: Data, path: String) throws(LoadError) -> ReplayData {
        var cache = JSONLinesDecoder.Cache()
        var frames: [MotionFrame] = []
        var types = Set<SensorType>()
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n")) {
            lineNumber += 1
            guard let record = try? line.withUnsafeBytes({ try JSONLinesDecoder.decode($0.bindMemory(to: UInt8.self), cache: &cache) }) else {
                throw LoadError(description: "\(path):\(lineNumber): not a JSON record")
            }
            guard record.isSample, let uptime = record.uptime, let name = record.sensorType,
                  let type = SensorType(rawValue: name), SensorType.motionTypes.contains(type),
                  let x = record.x, let y = record.y, let z = record.z else { continue }
            let v = Vector3(x: x, y: y, z: z)
            if frames.last?.uptime != uptime || frames.last?.vector(for: type) != nil {
                frames.append(MotionFrame(uptime: uptime))
            }
            frames[frames.count - 1].setRaw(v, for: type)
            types.insert(type)
        }
        guard frames.count >= 2 else { throw LoadError(description: "\(path): fewer than two motion samples") }
        let span = frames.last!.uptime - frames.first!.uptime
        let rate = span > 0 ? Double(frames.count - 1) / span : nil
        let sensorTypes = SensorType.motionTypes.filter(types.contains)
        var values: [Double] = []
        values.reserveCapacity(frames.count * sensorTypes.count * 3)
        for frame in frames {
            for type in sensorTypes {
                let v = frame.vector(for: type)
                values.append(contentsOf: [v?.x ?? .nan, v?.y ?? .nan, v?.z ?? .nan])
            }
        }
        return ReplayData(sensorTypes: sensorTypes, fileRate: rate, values: values)
    }
}
