import CALSA

/// A failed ALSA call: the operation and ALSA's error code (a negative errno).
public struct ALSAError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var code: Int32

    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    public var description: String { "\(operation): \(String(cString: snd_strerror(code)))" }
}
