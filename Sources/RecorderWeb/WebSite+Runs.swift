import Foundation
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
            return page(title: "Runs", section: "runs", body: runsBody(list, params: params))
        }
        router.get("/runs/:run") { _, context in
            let details = try await runDetails(context)
            return page(title: "\(details.summary.taskIdentifier) run", section: "runs", body: runBody(details))
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
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            try? FileManager.default.removeItem(atPath: file.scratch)
            throw WebError(.internalServerError, "the made file cannot be read")
        }
        // Open: the folder can go now; the file lives until the handle closes.
        try? FileManager.default.removeItem(atPath: file.scratch)
        let size = (try? handle.seekToEnd()).map { Int($0) }
        try? handle.seek(toOffset: 0)
        var headers: HTTPFields = [.contentType: file.contentType]
        if attachment { headers[.contentDisposition] = "attachment; filename=\"\(file.fileName)\"" }
        let body = ResponseBody(contentLength: size) { writer in
            defer { try? handle.close() }
            while true {
                let chunk = await QueueHandOff.blocking { (try? handle.read(upToCount: 1 << 18)).map { [UInt8]($0) } ?? [] }
                if chunk.isEmpty { break }
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    func runsBody(_ list: RunsListResult, params: RunsListParams) -> String {
        var html = "<h1>Runs</h1>\n<form method=\"get\" action=\"/runs\" class=\"filters\">"
        html += "<label>Task <input name=\"task\" value=\"\(HTML.escape(params.taskIdentifier ?? ""))\" size=\"14\"></label> "
        html += "<label>Status <select name=\"status\"><option value=\"\">any</option>"
        for s in ["recording", "finished", "cancelled", "interrupted", "abandoned"] {
            html += "<option\(params.status?.rawValue == s ? " selected" : "")>\(s)</option>"
        }
        html += "</select></label> <button type=\"submit\">Filter</button></form>\n"
        guard !list.runs.isEmpty else { return html + "<p id=\"no-runs\">No runs\(params.taskIdentifier != nil || params.status != nil ? " match" : " yet").</p>" }
        html += "<table class=\"runs\"><thead><tr><th>Started</th><th>Task</th><th>Status</th><th>Length</th><th>Samples</th><th>Gaps</th><th>Size</th></tr></thead><tbody>\n"
        for r in list.runs {
            let id = r.taskRunUUID.uuidString.lowercased()
            html += "<tr data-run=\"\(id)\"><td><a href=\"/runs/\(id)\">\(HTML.date(r.startDate))</a></td><td>\(HTML.escape(r.taskIdentifier))</td>"
            html += "<td class=\"status-\(r.status.rawValue)\">\(r.status.rawValue)</td><td>\(r.duration.map { HTML.number($0, digits: 1) + " s" } ?? "–")</td>"
            html += "<td>\(r.samples)\(r.droppedSamples > 0 ? " (\(r.droppedSamples) lost)" : "")</td><td>\(r.gapCount)</td><td>\(HTML.bytes(r.sizeBytes))</td></tr>\n"
        }
        html += "</tbody></table>\n"
        let offset = list.offset
        var pages: [String] = []
        func link(_ offset: Int, _ label: String) -> String {
            var query = ["offset=\(offset)"]
            if let t = params.taskIdentifier { query.append("task=\(t)") }
            if let s = params.status { query.append("status=\(s.rawValue)") }
            return "<a href=\"/runs?\(query.joined(separator: "&amp;"))\">\(label)</a>"
        }
        if offset > 0 { pages.append(link(max(0, offset - Self.pageSize), "newer")) }
        if offset + list.runs.count < list.total { pages.append(link(offset + list.runs.count, "older")) }
        html += "<p class=\"meta\">\(offset + 1)–\(offset + list.runs.count) of \(list.total) \(pages.joined(separator: " · "))</p>"
        return html
    }

    func runBody(_ details: RunDetails) -> String {
        let s = details.summary
        let r = details.taskResult
        let id = s.taskRunUUID.uuidString.lowercased()
        var html = "<h1>\(HTML.escape(s.taskIdentifier)) <span class=\"status-\(s.status.rawValue)\" id=\"run-status\">\(s.status.rawValue)</span></h1>\n"
        html += "<p class=\"meta\" id=\"run-uuid\">\(id) · started \(HTML.date(s.startDate))"
        if let d = s.duration { html += " · \(HTML.number(d, digits: 1)) s" }
        html += " · \(s.samples) samples · \(s.droppedSamples) lost in \(s.gapCount) gaps · \(HTML.bytes(s.sizeBytes))</p>\n"
        html += "<p class=\"downloads\">Download: " + Self.downloadFormats.map {
            "<a href=\"/runs/\(id)/export/\($0.rawValue)\" data-format=\"\($0.rawValue)\" download>\($0.rawValue)</a>"
        }.joined(separator: " · ") + " · <a href=\"/runs/\(id)/plot.svg\" download>plot (SVG)</a></p>\n"
        html += "<img class=\"plot\" id=\"plot\" src=\"/runs/\(id)/plot.png\" alt=\"plot of the run: a panel per sensor type, steps shaded, gaps and errors marked\">\n"
        html += "<h2>Steps</h2>\n<table class=\"steps\"><thead><tr><th>Step</th><th>Length</th><th>Answers and measures</th></tr></thead><tbody>\n"
        let summaries = r.asyncResults.compactMap(\.file).flatMap { $0.stepSummaries ?? [] }
        for step in r.stepHistory {
            let length = step.endUptime.map { HTML.number($0 - step.startUptime, digits: 1) + " s" } ?? "open"
            var notes: [String] = []
            for a in step.results ?? [] {
                notes.append("\(HTML.escape(a.identifier)): <b>\(HTML.escape(a.display ?? a.value.plainText ?? "–"))\(a.unit.map { " " + HTML.escape($0) } ?? "")</b>")
            }
            for g in summaries where g.stepPath == step.stepPath {
                // The headline starts with the step path, which the row already shows.
                let headline = g.headline.hasPrefix(g.stepPath + ": ") ? String(g.headline.dropFirst(g.stepPath.count + 2)) : g.headline
                notes.append("<span class=\"gait\">\(HTML.escape(g.identifier)): \(HTML.escape(headline))</span>")
            }
            let prefix = r.taskIdentifier + "/"
            let name = step.stepPath.hasPrefix(prefix) ? String(step.stepPath.dropFirst(prefix.count)) : step.stepPath
            html += "<tr><td title=\"\(HTML.escape(step.stepPath))\">\(HTML.escape(name))</td><td>\(length)</td><td>\(notes.joined(separator: "<br>"))</td></tr>\n"
        }
        html += "</tbody></table>\n<h2>Recordings</h2>\n<ul class=\"files\">\n"
        for result in r.asyncResults {
            if let f = result.file {
                let span = f.endUptime.map { HTML.number($0 - f.startUptime, digits: 1) + " s" } ?? "open"
                html += "<li><b>\(HTML.escape(f.identifier))</b> \(HTML.escape(f.relativePath)): \(f.sampleCount) records over \(span)"
                html += f.droppedSamples > 0 || f.gapCount > 0 ? " <span class=\"gap\">\(f.droppedSamples) lost in \(f.gapCount) gaps</span>" : ", no gaps"
                html += "</li>\n"
            } else if let e = result.error {
                html += "<li class=\"error\"><b>\(HTML.escape(e.identifier))</b>: \(HTML.escape(e.errorDescription))</li>\n"
            }
        }
        html += "</ul>\n"
        if s.status == .recording {
            html += "<p><button class=\"cancel-run\" data-run=\"\(s.taskRunUUID.uuidString)\">Cancel this run (keep its files)</button></p>\n"
        }
        return html
    }
}
