import RecorderRuntime

/// A D-Bus failure: an error reply (its D-Bus error name and message, e.g.
/// `org.freedesktop.DBus.Error.ServiceUnknown`), or a failure of the connection itself (`name`
/// nil, the system error's text).
public struct DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The D-Bus error name of an error reply; nil for a local failure.
    public var name: String?
    public var message: String

    public init(name: String?, message: String) {
        self.name = name
        self.message = message
    }

    /// A local failure of `operation` with the negative errno an sd-bus call returned.
    public static func system(_ operation: String, _ result: Int32) -> DBusError {
        DBusError(name: nil, message: "\(operation): " + ErrorText.reason(-result))
    }

    /// The name when there is one, then the message.
    public var description: String {
        guard let name else { return message }
        return message.isEmpty ? name : "\(message) (\(name))"
    }

    /// True when no program owns the destination (the service is not running): `ServiceUnknown`,
    /// or `NameHasNoOwner` for a call that asked not to start it.
    public var isServiceUnknown: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }
    /// True when the destination has no such object or interface (it went away).
    public var isUnknownObject: Bool {
        name == "org.freedesktop.DBus.Error.UnknownObject" || name == "org.freedesktop.DBus.Error.UnknownMethod"
            || name == "org.freedesktop.DBus.Error.UnknownInterface"
    }
}
