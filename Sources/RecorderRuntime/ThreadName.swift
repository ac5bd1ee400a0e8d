
/// Names of the threads recorderd starts, as `top -H`, `ps -L` and `/proc/PID/task/*/comm` show
/// them.
///
/// A new thread keeps the name of the thread that created it (a dispatch worker's
/// `…root.default-qos`). Linux keeps a name in 16 bytes with the terminating NUL
/// (`pthread_setname_np` refuses a longer one).
/// `start` names the new thread from inside it, cut to fit at a character boundary.
public enum ThreadName {
    /// The longest name Linux keeps, in UTF-8 bytes.
    public static let maximumLength = 15

    /// `kind.device` (`iio.imu0`, `alsa.mic0`), with the device's name cut at a character
    /// boundary to fit in `maximumLength` bytes.
    public static func sampling(_ kind: String, device: String) -> String {
        fitted(kind + "." + device)
    }

    /// `name` cut at a character boundary to at most `maximumLength` UTF-8 bytes.
    public static func fitted(_ name: String) -> String {
        var result = ""
        var length = 0
        for character in name {
            length += character.utf8.count
            if length > maximumLength { break }
            result.append(character)
        }
        return result
    }

    /// Starts a thread named `name` (cut to fit) that runs `body`.
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let fitted = fitted(name)
        DetachedThread.start {
            SystemCall.setThreadName(fitted)
            body()
        }
    }
}
