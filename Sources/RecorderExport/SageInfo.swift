import FoundationEssentials
import Glibc

/// `info.json` of a Bridge upload archive (its "v1_legacy" format): the files and the app.
struct SageInfo: Encodable {
    struct File: Encodable {
        var filename: String
        var timestamp: Date
        var contentType: String
    }
    var files: [File]
    var item: String
    var schemaRevision: Int
    var appName: String
    var appVersion: String
    var phoneInfo: String
    var dataFilename: String
    var format: String
    var createdOn: Date
    var taskRunUUID: UUID
}
