import Glibc
import RecorderConfiguration
import RecorderModel
import RecorderRuntime

/// Where `recorderd-services` is: beside the running `recorderd` (`/proc/self/exe`), as
/// `scripts/install.sh` and `swift build` place them.
enum ServicesProgram {
    static let name = "recorderd-services"

    /// What `--check-config` warns about when `configuration` has the web page or the fleet link
    /// and their program is not beside recorderd (nil when it is, or neither is on).
    static func missing(for configuration: DaemonConfiguration) -> String? {
        guard configuration.http != nil || configuration.mqtt != nil else { return nil }
        let path = path()
        guard access(path, X_OK) != 0 else { return nil }
        return "http and mqtt run in \(path), which is missing or not executable: install it beside recorderd (scripts/install.sh)"
    }

    static func path() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return name }
        let own = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return PathText.parent(of: own) + "/" + name
    }
}
