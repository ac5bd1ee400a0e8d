import Foundation
import RecorderModel

/// The samples of a replay file, converted to file units, one `MotionFrame` per row
/// (uptimes are assigned at playback).
public struct ReplayData: Sendable {
    public var frames: [MotionFrame]
    public var sensorTypes: [SensorType]
    /// Rows per second, when the file tells (JSONL uptimes).
    public var fileRate: Double?

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
            throw LoadError(description: "cannot read \(path): \((error as NSError).localizedDescription)")
        }
        var loaded: ReplayData
        if path.hasSuffix(".jsonl") || path.hasSuffix(".ndjson") {
            loaded = try loadJSONLines(data, path: path)
        } else {
            loaded = try loadCSV(data, path: path, configuration: configuration)
        }
        if let mount = configuration.mountMatrix, !mount.isIdentity {
            for i in loaded.frames.indices {
                loaded.frames[i].accelerometer = loaded.frames[i].accelerometer.map(mount.apply)
                loaded.frames[i].gyro = loaded.frames[i].gyro.map(mount.apply)
                loaded.frames[i].magnetometer = loaded.frames[i].magnetometer.map(mount.apply)
            }
        }
        return loaded
    }

    static func loadCSV(_ data: Data, path: String, configuration: ReplayConfiguration) throws(LoadError) -> ReplayData {
        guard let text = String(data: data, encoding: .utf8) else { throw LoadError(description: "\(path): not UTF-8 text") }
        var lines = text.split(whereSeparator: \.isNewline).makeIterator()
        guard let header = lines.next() else { throw LoadError(description: "\(path): empty file") }
        let names = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let types = SensorType.motionTypes.filter { configuration.columns[$0] != nil }
        var indices: [(SensorType, [Int], Double)] = []
        for type in types {
            var cols: [Int] = []
            for column in configuration.columns[type]! {
                guard let i = names.firstIndex(of: column) else {
                    throw LoadError(description: "\(path): no column \(column.debugDescription) (columns: \(names.joined(separator: ",")))")
                }
                cols.append(i)
            }
            indices.append((type, cols, configuration.factor(for: type)))
        }
        var frames: [MotionFrame] = []
        var lineNumber = 1
        for line in lines {
            lineNumber += 1
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            var frame = MotionFrame(uptime: 0)
            for (type, cols, factor) in indices {
                var v = [0.0, 0.0, 0.0]
                for axis in 0..<3 {
                    guard cols[axis] < fields.count, let value = Double(fields[cols[axis]].trimmingCharacters(in: .whitespaces)) else {
                        throw LoadError(description: "\(path):\(lineNumber): expected a number in column \(names[cols[axis]])")
                    }
                    v[axis] = factor == 1 ? value : value * factor
                }
                let vector = Vector3(x: v[0], y: v[1], z: v[2])
                switch type {
                case .accelerometer: frame.accelerometer = vector
                case .gyro: frame.gyro = vector
                default: frame.magnetometer = vector
                }
            }
            frames.append(frame)
        }
        guard !frames.isEmpty else { throw LoadError(description: "\(path): no samples") }
        return ReplayData(frames: frames, sensorTypes: types, fileRate: nil)
    }

    static func loadJSONLines(_ data: Data, path: String) throws(LoadError) -> ReplayData {
        let decoder = JSONDecoder()
        var frames: [MotionFrame] = []
        var types = Set<SensorType>()
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n")) {
            lineNumber += 1
            guard let record = try? decoder.decode(Record.self, from: line) else {
                throw LoadError(description: "\(path):\(lineNumber): not a JSON record")
            }
            guard record.isSample, let uptime = record.uptime, let name = record.sensorType,
                  let type = SensorType(rawValue: name), SensorType.motionTypes.contains(type),
                  let x = record.x, let y = record.y, let z = record.z else { continue }
            let v = Vector3(x: x, y: y, z: z)
            if frames.last?.uptime != uptime || frames.last?.vector(for: type) != nil {
                frames.append(MotionFrame(uptime: uptime))
            }
            switch type {
            case .accelerometer: frames[frames.count - 1].accelerometer = v
            case .gyro: frames[frames.count - 1].gyro = v
            default: frames[frames.count - 1].magnetometer = v
            }
            types.insert(type)
        }
        guard frames.count >= 2 else { throw LoadError(description: "\(path): fewer than two motion samples") }
        let span = frames.last!.uptime - frames.first!.uptime
        let rate = span > 0 ? Double(frames.count - 1) / span : nil
        return ReplayData(frames: frames, sensorTypes: SensorType.motionTypes.filter(types.contains), fileRate: rate)
    }
}
