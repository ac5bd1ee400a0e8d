import Foundation
import Testing

/// Every `async` test runs on a thread of its own (`@Test(.ownThread)`, `OwnThreadTrait`): on
/// the cooperative pool (two threads on the CI machine) its resumptions wait behind whatever
/// computes there, and its own bursts (an export, a fixture parsed, a run compared with its
/// replay) hold one of the two threads everybody else waits for. CI's gate once lost 12 tests to
/// 120-second time limits that way: in-process daemons answered, but the tests waiting on them
/// were not resumed for about two minutes. The synchronous tests stay on the pool, which keeps
/// them two at a time.
@Suite struct TestThreadTests {
    /// A test the scanner found: its function's name, whether it is `async`, and its attribute's text.
    struct Found: Equatable {
        var name: String
        var isAsync: Bool
        var traits: String
    }

    /// The `@Test` functions of a Swift source text, by the text of their attribute and
    /// signature. Only an attribute that starts its line counts, so a comment or a one-line
    /// string mentioning one does not (a multi-line string's line would).
    static func tests(in source: String) -> [Found] {
        let text = Array(source.utf8)
        var found: [Found] = []
        var i = 0
        while let at = find(Array("@Test".utf8), in: text, from: i) {
            i = at + 5
            // Only an attribute at the start of its line (after indentation).
            var k = at - 1
            while k >= 0 && (text[k] == UInt8(ascii: " ") || text[k] == UInt8(ascii: "\t")) { k -= 1 }
            guard k < 0 || text[k] == UInt8(ascii: "\n") else { continue }
            guard i == text.count || !isIdentifier(text[i]) else { continue }
            var traits = ""
            var after = i
            if after < text.count && text[after] == UInt8(ascii: "(") {
                guard let close = matchingParenthesis(text, at: after) else { break }
                traits = String(decoding: text[(after + 1)..<close], as: UTF8.self)
                after = close + 1
            }
            guard let funcAt = find(Array("func ".utf8), in: text, from: after),
                  let open = text[funcAt...].firstIndex(of: UInt8(ascii: "(")),
                  let close = matchingParenthesis(text, at: open),
                  let brace = text[close...].firstIndex(of: UInt8(ascii: "{")) else { continue }
            let name = String(decoding: text[(funcAt + 5)..<open], as: UTF8.self).trimmingCharacters(in: .whitespaces)
            let effects = String(decoding: text[(close + 1)..<brace], as: UTF8.self)
            found.append(Found(name: name, isAsync: effects.split(separator: " ").contains("async"), traits: traits))
            i = brace
        }
        return found
    }

    static func isIdentifier(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
    }

    static func find(_ needle: [UInt8], in text: [UInt8], from start: Int) -> Int? {
        guard needle.count <= text.count else { return nil }
        var i = start
        while i + needle.count <= text.count {
            if text[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// The index of the `)` closing the `(` at `open`, skipping string literals.
    static func matchingParenthesis(_ text: [UInt8], at open: Int) -> Int? {
        var depth = 0
        var inString = false
        var i = open
        while i < text.count {
            let c = text[i]
            if inString {
                if c == UInt8(ascii: "\\") { i += 1 } else if c == UInt8(ascii: "\"") { inString = false }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == UInt8(ascii: "(") {
                depth += 1
            } else if c == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 { return i }
            }
            i += 1
        }
        return nil
    }

    @Test func everyAsyncTestRunsOnAThreadOfItsOwn() throws {
        let tests = ArchitectureTests.root + "/Tests"
        let files = try #require(FileManager.default.enumerator(atPath: tests)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && !$0.hasPrefix("Fixtures/") }
        var missing: [String] = []
        var asyncCount = 0
        for file in files {
            let source = try String(contentsOfFile: tests + "/" + file, encoding: .utf8)
            for test in Self.tests(in: source) where test.isAsync {
                asyncCount += 1
                if !test.traits.contains(".ownThread") { missing.append("\(file): \(test.name)") }
            }
        }
        #expect(asyncCount > 200, "the scanner found \(asyncCount) async tests")
        #expect(missing == [], "async tests on the cooperative pool (add .ownThread):\n\(missing.joined(separator: "\n"))")
    }

    @Test func theScannerTellsAsyncTestsAndTheirTraits() {
        // Spelled with `at` so that this file's own scan does not take the sample for tests.
        let at = "@"
        let source = """
            /// `\(at)Test("in a comment")` is not a test.
            \(at)Test func plain() {}
            \(at)Test(.ownThread) func waits() async throws {}
            \(at)Test("a (name)", .timeLimit(.minutes(1)), arguments: [1, 2])
            func each(_ n: Int) async {}
            let text = "\(at)Test func notOne() async {}"
            """
        #expect(Self.tests(in: source) == [
            Found(name: "plain", isAsync: false, traits: ""),
            Found(name: "waits", isAsync: true, traits: ".ownThread"),
            Found(name: "each", isAsync: true, traits: #""a (name)", .timeLimit(.minutes(1)), arguments: [1, 2]"#),
        ])
    }
}
