import FoundationEssentials
import Glibc

/// A rotation as a unit quaternion (`w` the scalar part). As an attitude it takes vectors in the
/// device's axes to the reference frame's: `v_reference = q ⊗ v_device ⊗ q*`.
public struct Quaternion: Sendable, Equatable {
    public var w: Double
    public var x: Double
    public var y: Double
    public var z: Double

    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    /// No rotation.
    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// The rotation by `angle` radians about `axis` (any length but zero).
    public init(axis: Vector3, angle: Double) {
        let n = axis.length
        let s = sin(angle / 2) / n
        self.init(w: cos(angle / 2), x: axis.x * s, y: axis.y * s, z: axis.z * s)
    }

    public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }

    /// The same rotation with norm 1.
    public var normalized: Quaternion {
        let n = norm
        return Quaternion(w: w / n, x: x / n, y: y / n, z: z / n)
    }

    /// The inverse rotation (of a unit quaternion).
    public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    /// The Hamilton product: `(a * b)` rotates by `b`, then by `a`.
    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                   x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                   z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    /// `v` rotated (device axes to reference axes, for an attitude).
    public func rotate(_ v: Vector3) -> Vector3 {
        // v + 2 u × (u × v + w v), u = (x, y, z): no trigonometry, 15 multiplications.
        let u = Vector3(x: x, y: y, z: z)
        let t = u.cross(v) * 2
        return v + t * w + u.cross(t)
    }

    /// `v` rotated back (reference axes to device axes).
    public func inverseRotate(_ v: Vector3) -> Vector3 { conjugate.rotate(v) }

    /// The angle in radians of the rotation between two attitudes (0…π), whatever their signs.
    public func angle(to other: Quaternion) -> Double {
        let dot = abs(w * other.w + x * other.x + y * other.y + z * other.z) / (norm * other.norm)
        return 2 * acos(min(1, dot))
    }
}

extension Quaternion {
    /// The rotation whose matrix has these rows (an orthonormal, right-handed basis: the
    /// reference axes expressed in device axes), by Shepperd's method.
    public init(rows r0: Vector3, _ r1: Vector3, _ r2: Vector3) {
        let trace = r0.x + r1.y + r2.z
        if trace > 0 {
            let s = 2 * (trace + 1).squareRoot()
            self.init(w: s / 4, x: (r2.y - r1.z) / s, y: (r0.z - r2.x) / s, z: (r1.x - r0.y) / s)
        } else if r0.x > r1.y && r0.x > r2.z {
            let s = 2 * (1 + r0.x - r1.y - r2.z).squareRoot()
            self.init(w: (r2.y - r1.z) / s, x: s / 4, y: (r0.y + r1.x) / s, z: (r0.z + r2.x) / s)
        } else if r1.y > r2.z {
            let s = 2 * (1 + r1.y - r0.x - r2.z).squareRoot()
            self.init(w: (r0.z - r2.x) / s, x: (r0.y + r1.x) / s, y: s / 4, z: (r1.z + r2.y) / s)
        } else {
            let s = 2 * (1 + r2.z - r0.x - r1.y).squareRoot()
            self.init(w: (r1.x - r0.y) / s, x: (r0.z + r2.x) / s, y: (r1.z + r2.y) / s, z: s / 4)
        }
        self = normalized
    }
}
