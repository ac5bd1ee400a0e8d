import FoundationEssentials
import Glibc
import RecorderClient
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// A run as the command line names it: a task-run UUID or a unique prefix of one (the daemon
/// finds it), or a run directory (read directly, for a copied folder and without a daemon).
enum RunReference {
    /// The run's summary and manifest.
    static func details(_ run: String, socket: SocketOptions) async throws -> RunDetails {
        if isDirectory(run) { return try local(run) }
        let client = try await socket.connect()
        return try await client.run(run)
    }

    /// True when `run` names a directory (it has a "/", or a directory of that name exists here)
    /// rather than a UUID or a prefix of one.
    static func isDirectory(_ run: String) -> Bool {
        run.contains("/") || FileStatus.isDirectory(run)
    }

    /// Reads a run directory's manifest.
    static func local(_ directory: String) throws -> RunDetails {
        let path = PathText.standardized(directory)
        guard FileStatus.isDirectory(path) else {
            throw CommandFailure("\(directory): no such directory", .noInput)
        }
        let manifest = path + "/taskResult.json"
        guard let data = FileManager.default.contents(atPath: manifest) else {
            throw CommandFailure("\(directory) is not a run directory: it has no readable taskResult.json", .noInput)
        }
        let result: TaskResult
        do {
            result = try JSONValueDecoder().decode(TaskResult.self, from: data)
        } catch {
            throw CommandFailure("\(manifest) is not a task result: \(DecodingErrorDescription.describe(error, prefix: "taskResult"))", .dataError)
        }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return RunDetails(summary: RunSummary(result, runDirectory: PathText.standardized(absolute), sizeBytes: DirectorySize.bytes(of: path)),
                          taskResult: result)
    }
}
