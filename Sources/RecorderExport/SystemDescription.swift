import FoundationEssentials
import Glibc
import RecorderRuntime

/// The machine an export is made on, for `metadata.json`'s `deviceInfo` and
/// `deviceTypeIdentifier`: the kernel and architecture (uname) and the board's model (the
/// device tree's, on a Raspberry Pi).
struct SystemDescription {
    var info: String
    var model: String

    static var current: SystemDescription {
        var u = utsname()
        uname(&u)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let model = (try? String(contentsOfFile: "/proc/device-tree/model", encoding: .utf8))?
            .filter { $0 != "\0" }.trimmingWhitespace()
        let machine = field(u.machine)
        return SystemDescription(info: "\(field(u.sysname)) \(field(u.release)) \(machine)", model: model.flatMap { $0.isEmpty ? nil : $0 } ?? machine)
    }
}
