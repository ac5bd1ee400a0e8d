/// The quantised formats of a vector's three axes (a sensor type of one device).
public struct QuantizedVector: Sendable {
    public var x: QuantizedDecimal
    public var y: QuantizedDecimal
    public var z: QuantizedDecimal

    /// Nil when an axis's quantum is outside `QuantizedDecimal.quantumRange`.
    public init?(quanta: Vector3) {
        guard let x = QuantizedDecimal(quantum: quanta.x), let y = QuantizedDecimal(quantum: quanta.y),
              let z = QuantizedDecimal(quantum: quanta.z) else { return nil }
        self.x = x
        self.y = y
        self.z = z
    }
}
