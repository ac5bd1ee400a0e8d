import Glibc
import RecorderModel

/// Where `recorderd-services` is: beside the running `recorderd` (`/proc/self/exe`), as
/// `scripts/install.sh` and `swift build` place them.
enum ServicesProgram {
    static let name = "recorderd-services"

    static func path() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return name }
        let own = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return PathText.parent(of: own) + "/" + name
    }
}
