/// What went wrong with a Bluetooth LE sensor or one of its notifications, in words for a
/// fault record or `devices.list`.
public struct BLEError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
