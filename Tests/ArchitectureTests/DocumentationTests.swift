import Foundation
import Testing

/// The documentation a newcomer finds their way in: a README of at most 300 lines that links
/// every page of docs/, and no relative link (to a file, or to a heading of one) that leads nowhere.
@Suite("Documentation: a short README, pages by topic, links that resolve")
struct DocumentationTests {
    static let root = ArchitectureTests.root

    /// The Markdown files of the documentation: the README, BENCHMARKS.md and docs/.
    static func pages() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root + "/docs").filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md", "BENCHMARKS.md"] + docs
    }

    /// The targets of a page's links (`[text](target)`), outside code blocks and code spans.
    static func links(in text: String) -> [String] {
        var found: [String] = []
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            // Code spans hold no links.
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            var rest = prose[...]
            while let close = rest.range(of: "](") {
                let after = rest[close.upperBound...]
                guard let end = after.firstIndex(of: ")") else { break }
                found.append(String(after[..<end]))
                rest = after[end...]
            }
        }
        return found
    }

    /// A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as dashes.
    static func anchor(_ heading: String) -> String {
        let text = heading.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
        return String(text.compactMap { c -> Character? in
            if c == " " { return "-" }
            return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
        })
    }

    /// The anchors of a page's headings (outside code blocks).
    static func anchors(in text: String) -> Set<String> {
        var found: Set<String> = []
        var inFence = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            if !inFence, line.hasPrefix("#") { found.insert(anchor(String(line))) }
        }
        return found
    }

    @Test("every relative link of the README, BENCHMARKS.md and docs/ leads to a file, and to a heading of it")
    func relativeLinksResolve() throws {
        var broken: [String] = []
        var checked = 0
        for page in try Self.pages() {
            let text = try String(contentsOfFile: Self.root + "/" + page, encoding: .utf8)
            let folder = (page as NSString).deletingLastPathComponent
            for link in Self.links(in: text) where !link.contains("://") && !link.hasPrefix("mailto:") {
                checked += 1
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let file = parts[0].isEmpty ? page : (folder.isEmpty ? parts[0] : folder + "/" + parts[0])
                let path = (Self.root + "/" + file as NSString).standardizingPath
                guard FileManager.default.fileExists(atPath: path) else {
                    broken.append("\(page): \(link): no file \(file)")
                    continue
                }
                if parts.count == 2, path.hasSuffix(".md") {
                    let target = try String(contentsOfFile: path, encoding: .utf8)
                    if !Self.anchors(in: target).contains(parts[1]) { broken.append("\(page): \(link): \(file) has no heading #\(parts[1])") }
                }
            }
        }
        #expect(broken == [], "\(broken.joined(separator: "\n"))")
        #expect(checked > 40, "only \(checked) links found: is the link reader right?")
    }

    @Test("the README is at most 300 lines and links every page of docs/")
    func theReadmeIsShortAndLeadsEverywhere() throws {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 300, "README.md has \(lines) lines")
        let linked = Set(Self.links(in: readme).map { String($0.split(separator: "#").first ?? "") })
        for page in try Self.pages() where page.hasPrefix("docs/") { #expect(linked.contains(page), "README.md does not link \(page)") }
        // Its two commands, as CI runs the second.
        #expect(readme.contains("./scripts/setup.sh && swift build -c release && .build/release/recorderctl demo"))
        #expect(readme.contains("```sh\nswift test\n```"))
    }

    @Test("the link reader and the anchors as GitHub makes them")
    func theLinkReaderReadsLinks() {
        #expect(Self.links(in: "a [b](c.md#d) `[x](y)` [e](f)\n```\n[g](h)\n```") == ["c.md#d", "f"])
        #expect(Self.anchor("### `replay`: a recording played back") == "replay-a-recording-played-back")
        #expect(Self.anchor("## Device motion (fused)") == "device-motion-fused")
    }
}
