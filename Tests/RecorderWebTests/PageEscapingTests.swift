import Foundation
import RecorderClient
import RecorderFHIR
import RecorderJSON
import RecorderModel
import RecorderProtocol
@testable import RecorderWeb
import Testing

/// Every value a page shows goes through the templates' escaping: a `<script>` put into any text
/// field of what the daemon answers (task identifier, step path, answer text, device name, error
/// message, file names…), one field at a time, reaches the page as text, never as markup.
@Suite("Pages escape every field they show")
struct PageEscapingTests {
    static let payload = "<script>alert(\"x\")</script>'&\u{7}"
    static let escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;\u{FFFD}"
    static let markup = "<script>alert(\"x\")</script>'&"
    static let escapedMarkup = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;"

    /// Each text leaf of `value`'s JSON replaced by the payload in turn (those the type still
    /// decodes with: names and messages, not dates or states), rendered; returns the JSON paths
    /// injected. A page that shows the payload must show it escaped; no page may contain it raw.
    func inject<T: Codable>(_ value: T, render: (T) -> String) throws -> [String] {
        let tree = try JSONValue(encoding: value)
        _ = try JSONValueDecoder().decode(T.self, from: tree)
        var injected: [String] = []
        for path in Self.stringPaths(tree) {
            // Texts the model refuses control characters in (answers) get the markup alone.
            for (payload, escaped) in [(Self.payload, Self.escaped), (Self.markup, Self.escapedMarkup)] {
                let mutated = Self.replacing(path, in: tree, with: .string(payload))
                guard let decoded = try? JSONValueDecoder().decode(T.self, from: mutated) else { continue }
                let html = render(decoded)
                #expect(!html.contains("<script>alert"), "raw script from \(path.joined(separator: "."))")
                #expect(!html.contains("\u{7}"), "a control character from \(path.joined(separator: "."))")
                if html.contains(escaped) { injected.append(path.joined(separator: ".")) }
                break
            }
        }
        return injected
    }

    let site = WebSite(socketPath: "/nonexistent", dataDirectory: "/data", taskDirectory: "/tasks",
                       access: WebAccess(token: nil, csrfToken: String(repeating: "c", count: 64)), socketLimit: 4, logger: .init(label: "test"))

    func render<V>(_ template: String, _ view: V) -> String {
        WebTemplates.render(template, WebPage(title: Self.payload, section: "devices", csrf: "token", page: view))
    }

    @Test("the devices page")
    func devicesPage() throws {
        let status = DaemonStatus(version: "0.1.0", uptimeSeconds: 12, pid: 42, dataDirectory: "/data",
                                  devices: [DeviceInfo(name: "imu0", kind: "replay", state: .unavailable, sensorTypes: [.accelerometer, .gyro],
                                                       fusedTypes: [.attitude], rate: 100, error: "cannot open walk.csv")],
                                  taskRuns: [ActiveTaskRun(taskIdentifier: "walk", taskRunUUID: UUID(), runDirectory: "/data/runs/walk/x",
                                                           currentStepPath: "walk/outbound", recording: ["motion"])])
        let injected = try inject(status) { render("devices", DevicesView($0)) }
        #expect(injected.contains("devices.0.name") && injected.contains("devices.0.error") && injected.contains("devices.0.kind"), "\(injected)")
        let tasks = try inject(status) { render("tasks", TasksView(.success([]), active: $0.taskRuns, folder: "/tasks")) }
        #expect(tasks.contains("taskRuns.0.taskIdentifier") && tasks.contains("taskRuns.0.currentStepPath"), "\(tasks)")
    }

    @Test("a run's page and the run list")
    func runPages() throws {
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        var result = TaskResult(taskIdentifier: "walk", taskRunUUID: UUID(), startDate: start, status: .finished)
        result.stepHistory = [StepHistoryEntry(stepPath: "walk/outbound", startDate: start, startUptime: 10, endDate: start + 5, endUptime: 15,
                                               results: [AnswerResult(identifier: "pain", answerType: .choice, value: .string("little"), unit: nil,
                                                                      display: "a little"),
                                                         AnswerResult(identifier: "notes", answerType: .string, value: .string("fine"), unit: nil, display: nil)])]
        var file = FileResult(identifier: "motion", relativePath: "motion.jsonl", startDate: start, startUptime: 10, units: [:])
        file.stepSummaries = [GaitStepSummary(identifier: "gait", stepPath: "walk/outbound", startUptime: 10, endUptime: 15, activity: .neither)]
        result.asyncResults = [.file(file), .error(ErrorResult(identifier: "location_error", errorDescription: "no GPS device"))]
        let details = RunDetails(summary: RunSummary(result, runDirectory: "/data/runs/walk/x", sizeBytes: 1000), taskResult: result)
        let plain = render("run", RunView(details, formats: WebSite.downloadFormats))
        #expect(plain.contains("notes: <b>fine</b>") && plain.contains("pain: <b>a little</b>"), "answers not shown: \(plain)")
        let injected = try inject(details) { render("run", RunView($0, formats: WebSite.downloadFormats)) }
        for field in ["summary.taskIdentifier", "taskResult.stepHistory.0.stepPath",
                      "taskResult.stepHistory.0.results.0.display",
                      "taskResult.stepHistory.0.results.1.value", "taskResult.asyncResults.1.errorDescription",
                      "taskResult.asyncResults.0.relativePath", "taskResult.asyncResults.0.stepSummaries.0.identifier"] {
            #expect(injected.contains(field), "\(field) not shown: \(injected)")
        }
        let list = RunsListResult(runs: [details.summary], total: 1, offset: 0)
        let listed = try inject(list) { render("runs", RunsView($0, params: RunsListParams(taskIdentifier: Self.payload), pageSize: 50)) }
        #expect(listed.contains("runs.0.taskIdentifier"), "\(listed)")
    }

    @Test("tasks, a task's screen, the login form and error pages")
    func otherPages() throws {
        let definition = try TaskDefinition.decode(Data(#"{"identifier": "walk", "steps": [{"identifier": "intro", "type": "instruction", "title": "Walk", "text": "Walk ten metres"}], "asyncActions": []}"#.utf8))
        let shown = try inject(definition) { render("task", TaskView(name: "walk", $0)) }
        #expect(shown.contains("steps.0.title") && shown.contains("steps.0.text"), "\(shown)")
        let listed = try inject(definition) { render("tasks", TasksView(.success([WebSite.ListedTask(name: "walk", definition: .success($0))]), active: [], folder: "/tasks")) }
        #expect(listed.contains("steps.0.title"), "\(listed)")
        let broken = render("tasks", TasksView(.success([WebSite.ListedTask(name: "broken", definition: .failure(.invalid("broken.json", Self.payload)))]),
                                               active: [], folder: Self.payload))
        #expect(broken.contains(Self.escaped) && !broken.contains("<script>alert"))
        for page in [render("login", LoginView(next: Self.payload, problem: Self.payload)),
                     render("error", ErrorView(WebError(.badRequest, Self.payload)))] {
            #expect(page.contains(Self.escaped) && !page.contains("<script>alert"))
        }
        // The layout's own fields: the title.
        #expect(render("error", ErrorView(WebError(.notFound, "x"))).contains("<title>\(Self.escaped) · recorderd</title>"))
    }

    // MARK: JSON paths

    static func stringPaths(_ value: JSONValue, prefix: [String] = []) -> [[String]] {
        switch value {
        case .string: return [prefix]
        case .array(let elements): return elements.enumerated().flatMap { stringPaths($1, prefix: prefix + [String($0)]) }
        case .object(let members): return members.sorted { $0.key < $1.key }.flatMap { stringPaths($1, prefix: prefix + [$0]) }
        default: return []
        }
    }

    static func replacing(_ path: [String], in value: JSONValue, with leaf: JSONValue) -> JSONValue {
        guard let head = path.first else { return leaf }
        switch value {
        case .array(var elements):
            guard let i = Int(head), elements.indices.contains(i) else { return value }
            elements[i] = replacing(Array(path.dropFirst()), in: elements[i], with: leaf)
            return .array(elements)
        case .object(var members):
            guard let member = members[head] else { return value }
            members[head] = replacing(Array(path.dropFirst()), in: member, with: leaf)
            return .object(members)
        default:
            return value
        }
    }
}
