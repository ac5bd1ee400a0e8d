import FoundationEssentials
import Glibc

/// How a sensor is mounted in its device: the 3×3 matrix that takes the sensor's axes to the
/// device's (`v_device = M · v_sensor`), as the IIO `mount_matrix` attributes give it and the
/// replay device's `mountMatrix` configures it. Configured matrices must be rotations.
public struct MountMatrix: Sendable, Equatable {
    /// The rows.
    public var rows: (Vector3, Vector3, Vector3)

    public init(rows r0: Vector3, _ r1: Vector3, _ r2: Vector3) {
        rows = (r0, r1, r2)
    }

    public static let identity = MountMatrix(rows: Vector3(x: 1, y: 0, z: 0), Vector3(x: 0, y: 1, z: 0), Vector3(x: 0, y: 0, z: 1))

    public static func == (a: MountMatrix, b: MountMatrix) -> Bool {
        a.rows.0 == b.rows.0 && a.rows.1 == b.rows.1 && a.rows.2 == b.rows.2
    }

    public var isIdentity: Bool { self == .identity }

    /// `v` in the device's axes.
    @inline(__always)
    public func apply(_ v: Vector3) -> Vector3 {
        Vector3(x: rows.0.dot(v), y: rows.1.dot(v), z: rows.2.dot(v))
    }

    /// One count of each device axis, given one count of each sensor axis, when every row takes
    /// exactly one sensor axis (entries 0 and ±1: the axes are only swapped or flipped, so the
    /// device's values stay whole counts); nil for any other matrix.
    public func permutedQuanta(_ quanta: Vector3) -> Vector3? {
        func pick(_ row: Vector3) -> Double? {
            let entries = [row.x, row.y, row.z]
            guard entries.allSatisfy({ $0 == 0 || abs($0) == 1 }), entries.filter({ $0 != 0 }).count == 1 else { return nil }
            return row.x != 0 ? quanta.x : row.y != 0 ? quanta.y : quanta.z
        }
        guard let x = pick(rows.0), let y = pick(rows.1), let z = pick(rows.2) else { return nil }
        return Vector3(x: x, y: y, z: z)
    }

    /// True for a rotation: orthonormal rows (within 1e-6) and determinant +1 (not a reflection).
    public var isRotation: Bool {
        let r = [rows.0, rows.1, rows.2]
        for i in 0..<3 {
            for j in 0..<3 {
                let expected: Double = i == j ? 1 : 0
                guard abs(r[i].dot(r[j]) - expected) < 1e-6 else { return false }
            }
        }
        return abs(rows.0.cross(rows.1).dot(rows.2) - 1) < 1e-6
    }

    /// The IIO attribute's text, `"x1, y1, z1; x2, y2, z2; x3, y3, z3"` (rows); nil when it is
    /// not nine finite numbers.
    public init?(iioText text: String) {
        let rows = text.split(separator: ";").map { $0.split(separator: ",").map { Double($0.trimmingWhitespace()) } }
        guard rows.count == 3, rows.allSatisfy({ $0.count == 3 && $0.allSatisfy { $0?.isFinite == true } }) else { return nil }
        let v = rows.map { Vector3(x: $0[0]!, y: $0[1]!, z: $0[2]!) }
        self.init(rows: v[0], v[1], v[2])
    }
}

extension MountMatrix: Codable {
    /// JSON: three rows of three numbers, `[[1,0,0],[0,1,0],[0,0,1]]`, a rotation.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let rows = try container.decode([[Double]].self)
        guard rows.count == 3, rows.allSatisfy({ $0.count == 3 && $0.allSatisfy(\.isFinite) }) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected three rows of three numbers")
        }
        let v = rows.map { Vector3(x: $0[0], y: $0[1], z: $0[2]) }
        self.init(rows: v[0], v[1], v[2])
        guard isRotation else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a rotation (orthonormal rows, determinant +1)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode([rows.0, rows.1, rows.2].map { [$0.x, $0.y, $0.z] })
    }
}
