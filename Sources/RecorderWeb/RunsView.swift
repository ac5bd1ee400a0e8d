import FoundationEssentials
import Glibc
import RecorderModel
import RecorderProtocol

/// What `runs.mustache` shows: the filter form, a page of runs, links to newer and older ones.
struct RunsView {
    struct Status {
        let name: String
        let selected: Bool
    }

    struct PageLink {
        /// The query after `?`, in the URL: escaped by the template like any value.
        let query: String
        let label: String
    }

    let task: String
    let statuses: [Status]
    let filtered: Bool
    let runs: [RunRow]
    let from: Int
    let to: Int
    let total: Int
    let pages: [PageLink]

    init(_ list: RunsListResult, params: RunsListParams, pageSize: Int) {
        task = params.taskIdentifier ?? ""
        statuses = TaskRunStatus.allCases.map { Status(name: $0.rawValue, selected: params.status == $0) }
        filtered = params.taskIdentifier != nil || params.status != nil
        runs = list.runs.map(RunRow.init)
        from = list.offset + 1
        to = list.offset + list.runs.count
        total = list.total
        func link(_ offset: Int, _ label: String) -> PageLink {
            var query = ["offset=\(offset)"]
            // Percent-encoded: a value is a query's text first (the template then escapes it as HTML).
            if let t = params.taskIdentifier { query.append("task=" + PercentEncoding.escaped(t)) }
            if let s = params.status { query.append("status=\(s.rawValue)") }
            return PageLink(query: query.joined(separator: "&"), label: label)
        }
        var pages: [PageLink] = []
        if list.offset > 0 { pages.append(link(max(0, list.offset - pageSize), "newer")) }
        if list.offset + list.runs.count < list.total { pages.append(link(list.offset + list.runs.count, "older")) }
        self.pages = pages
    }
}
