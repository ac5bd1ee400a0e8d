import FoundationEssentials
import Glibc
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import RecorderClient
import RecorderExport
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// `/runs`: the run history (newest first, filtered by task and status) and a run's page with its
/// manifest, plot and downloads. Runs are named by task-run UUID (or a prefix) and found by the
/// daemon (`runs.list`, `runs.get`); their directories must lie in the data directory.
extension WebSite {
    /// The formats a run's page offers (MORK needs the form's identifiers: `recorderctl export`).
    static let downloadFormats: [ExportFormat] = [.csv, .mcap, .sage, .fhir]
    static let pageSize = 50

    func registerRuns(on router: Router<Context>) {
        router.get("/runs") { request, _ in
            let query = request.uri.queryParameters
            var params = RunsListParams(limit: Self.pageSize)
            if let task = query["task"].map(String.init), !task.isEmpty {
                guard RecorderIdentifier.isValid(task) else { throw WebError(.badRequest, "task: expected \(RecorderIdentifier.expectation)") }
                params.taskIdentifier = task
            }
            if let status = query["status"].map(String.init), !status.isEmpty {
                guard let s = TaskRunStatus(rawValue: status) else { throw WebError(.badRequest, "status: expected recording, finished, cancelled, interrupted or abandoned") }
                params.status = s
            }
            if let offset = query["offset"].map(String.init), !offset.isEmpty {
                guard offset.utf8.count <= 9, let n = Int(offset), n >= 0 else { throw WebError(.badRequest, "offset: expected a whole number from 0") }
                params.offset = n
            }
            let list = try await withDaemon { [params] client throws(RecorderClientError) in try await client.runs(params) }
            return page(title: "Runs", section: "runs", template: "runs", RunsView(list, params: params, pageSize: Self.pageSize))
        }
        router.get("/runs/:run") { _, context in
            let details = try await runDetails(context)
            return page(title: "\(details.summary.taskIdentifier) run", section: "runs", template: "run", RunView(details, formats: Self.downloadFormats))
        }
        router.get("/runs/:run/plot.png") { _, context in
            let directory = try await runDetails(context).summary.runDirectory
            return try await send(await QueueHandOff.blocking { RunFiles.plot(directory, svg: false) }, attachment: false)
        }
        router.get("/runs/:run/plot.svg") { _, context in
            let directory = try await runDetails(context).summary.runDirectory
            return try await send(await QueueHandOff.blocking { RunFiles.plot(directory, svg: true) }, attachment: false)
        }
        router.get("/runs/:run/export/:format") { _, context in
            guard let name = context.parameters.get("format"), let format = ExportFormat(rawValue: name), Self.downloadFormats.contains(format) else {
                throw WebError(.notFound, "no such export: expected one of \(Self.downloadFormats.map(\.rawValue).joined(separator: ", "))")
            }
            let directory = try await runDetails(context).summary.runDirectory
            return try await send(await QueueHandOff.blocking { RunFiles.export(directory, format: format) }, attachment: true)
        }
        router.post("/api/runs/:run/cancel") { _, context in
            guard let id = context.parameters.get("run"), let uuid = UUID(uuidString: id) else { throw WebError(.badRequest, "expected a task-run UUID") }
            let result = try await withDaemon { client throws(RecorderClientError) in
                try await client.call(.taskCancel, TaskCancelParams(taskRunUUID: uuid, keepFiles: true), as: TaskResult.self)
            }
            return try Self.json(["status": result.status.rawValue])
        }
    }

    /// The run a request names, checked: a UUID or prefix, known to the daemon, in the data directory.
    func runDetails(_ context: Context) async throws(WebError) -> RunDetails {
        guard let id = context.parameters.get("run"), RunFiles.isRunID(id) else {
            throw WebError(.badRequest, "a run is named by its task-run UUID or a prefix of one (hex digits and dashes)")
        }
        let details = try await withDaemon { client throws(RecorderClientError) in try await client.run(id) }
        guard RunFiles.isInside(details.summary.runDirectory, dataDirectory: dataDirectory) else {
            throw WebError(.forbidden, "the run's directory is not inside the data directory")
        }
        return details
    }

    /// Streams a made file and removes its folder; an export's failure is the page's message.
    func send(_ made: Result<RunFiles.Made, ExportError>, attachment: Bool) async throws -> Response {
        let file: RunFiles.Made
        switch made {
        case .success(let m): file = m
        case .failure(let error): throw WebError(.unprocessableContent, "cannot make it from this run: \(error)")
        }
        guard let handle = ReadableFile(path: file.path) else {
            try? FileManager.default.removeItem(atPath: file.scratch)
            throw WebError(.internalServerError, "the made file cannot be read")
        }
        // Open: the folder can go now; the file lives until the handle closes.
        try? FileManager.default.removeItem(atPath: file.scratch)
        let size = handle.size.map { Int($0) }
        var headers: HTTPFields = [.contentType: file.contentType]
        if attachment { headers[.contentDisposition] = "attachment; filename=\"\(file.fileName)\"" }
        let body = ResponseBody(contentLength: size) { writer in
            while true {
                let chunk = await QueueHandOff.blocking { handle.read(upTo: 1 << 18) ?? [] }
                if chunk.isEmpty { break }
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
