import FoundationEssentials
import Glibc

/// SageResearch's `RSDTaskMetadata` (`metadata.json` of an upload archive), field for field.
struct SageMetadata: Encodable {
    /// `RSDFileManifest`.
    struct File: Encodable {
        var filename: String
        var timestamp: Date
        var contentType: String
        var identifier: String
        var stepPath: String?
    }
    var deviceInfo: String
    var deviceTypeIdentifier: String
    var appName: String
    var appVersion: String
    var rsdFrameworkVersion: String
    var taskIdentifier: String
    var taskRunUUID: UUID
    var startDate: Date
    var endDate: Date
    var files: [File]
}
