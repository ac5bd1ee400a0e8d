import FoundationEssentials
@testable import RecorderWeb
import Testing

/// The page's template language (Mustache's syntax, the part the templates use), rendered from
/// Swift values by their stored properties.
@Suite("Page templates")
struct PageTemplateTests {
    struct Row {
        let name: String
        let lost: Int?
        let here: Bool
    }

    struct View {
        let title: String
        let rows: [Row]
        let note: String?
        let count: Int
        let nested: Row?
    }

    static let view = View(title: "Runs <&>", rows: [Row(name: "a\"b", lost: 3, here: true), Row(name: "c", lost: nil, here: false)],
                           note: nil, count: 2, nested: Row(name: "n", lost: 0, here: true))

    func render(_ templates: [String: String], _ name: String, _ value: Any = Self.view) throws -> String {
        var library = PageTemplateLibrary()
        for (n, text) in templates { try library.register(text, named: n) }
        return try #require(library.render(value, withTemplate: name, escape: HTML.escape))
    }

    @Test func valuesAreEscapedAndMissingOnesAreEmpty() throws {
        #expect(try render(["t": "<h1>{{title}}</h1>{{count}}{{missing}}{{nested.name}}{{nested.lost}}"], "t") == "<h1>Runs &lt;&amp;&gt;</h1>2n0")
    }

    @Test func sectionsOverListsFlagsOptionalsAndValues() throws {
        let text = "{{#rows}}[{{name}}{{#lost}} {{.}} lost{{/lost}}{{^lost}} none{{/lost}}{{#here}} here{{/here}} of {{count}}]{{/rows}}"
        #expect(try render(["t": text], "t") == "[a&quot;b 3 lost here of 2][c none of 2]")
        #expect(try render(["t": "{{#note}}shown{{/note}}{{^note}}no note{{/note}}{{#nested}}<{{name}}>{{/nested}}"], "t") == "no note<n>")
        #expect(try render(["t": "{{^empty(rows)}}some{{/empty(rows)}}{{#empty(rows)}}none{{/empty(rows)}}"], "t") == "some")
        let empty = View(title: "", rows: [], note: "x", count: 0, nested: nil)
        #expect(try render(["t": "{{^rows}}no rows{{/rows}}{{#empty(rows)}}!{{/empty(rows)}}{{#note}}{{.}}{{/note}}{{#nested}}x{{/nested}}"], "t", empty) == "no rows!x")
    }

    @Test func aChildOverridesItsParentsBlocks() throws {
        let templates = ["layout": "<title>{{title}}</title>{{$content}}default{{/content}}{{$foot}}foot{{/foot}}",
                         "page": "{{<layout}}ignored{{$content}}<p>{{count}}</p>{{/content}}{{/layout}}"]
        #expect(try render(templates, "page") == "<title>Runs &lt;&amp;&gt;</title><p>2</p>foot")
        #expect(try render(templates, "layout") == "<title>Runs &lt;&amp;&gt;</title>defaultfoot")
    }

    @Test func aLineHoldingOnlyATagLeavesNoBlankLine() throws {
        let text = "{{% CONTENT_TYPE: RECORDERD_HTML }}\n<ul>\n  {{#rows}}\n  <li>{{name}}</li>\n  {{/rows}}\n</ul>\n{{! a comment }}\nend"
        #expect(try render(["t": text], "t") == "<ul>\n  <li>a&quot;b</li>\n  <li>c</li>\n</ul>\nend")
        // Two tags on a line are not standalone: the line stays.
        #expect(try render(["t": "a\n{{#here}}{{/here}}\nb"], "t", Row(name: "", lost: nil, here: true)) == "a\n\nb")
    }

    @Test(arguments: ["{{{title}}}", "{{&title}}", "{{>partial}}", "{{=<% %>=}}", "{{#rows}}", "{{/rows}}", "{{#a}}{{/b}}", "{{title", "{{}}",
                      "{{a..b}}", "{{empty(.)}}"])
    func whatTheLanguageDoesNotHaveIsRefused(_ text: String) {
        #expect(throws: PageTemplate.SyntaxError.self) { _ = try PageTemplate(parsing: text) }
    }

    @Test func aTemplateThatIncludesItselfStops() throws {
        #expect(try render(["loop": "x{{<loop}}{{/loop}}"], "loop") == String(repeating: "x", count: PageTemplateLibrary.maximumDepth + 1))
    }

    /// Every template of the page parses.
    @Test func thePagesTemplatesParse() {
        for name in ["layout", "error", "login", "devices", "runs", "run", "tasks", "task"] {
            #expect(WebTemplates.render(name, WebPage(title: "t", section: "runs", csrf: "c", page: 0)).hasPrefix("<!DOCTYPE html>"), "\(name)")
        }
    }
}

/// The pages' dates come from the C library's calendar: FoundationEssentials resolves no named
/// time zone without ICU (a `TimeZone(identifier: "UTC")!` stopped the page's process).
@Suite("Page dates")
struct PageDateTests {
    @Test func aDateIsShownInUTCWithoutATimeZoneDatabase() {
        #expect(HTML.date(Date(timeIntervalSince1970: 1_796_646_896.9)) == "2026-12-07 12:34:56 UTC")
        #expect(HTML.date(Date(timeIntervalSince1970: 951_825_600)) == "2000-02-29 12:00:00 UTC")
    }
}
