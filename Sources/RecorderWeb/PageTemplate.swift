import RecorderRuntime

/// One of the page's HTML templates, in the part of Mustache's syntax they use: `{{name}}`,
/// `{{a.b}}` and `{{.}}` (always HTML-escaped: there is no unescaped form, `{{{…}}}` and
/// `{{&…}}` are refused), sections `{{#name}}…{{/name}}` (once for true or a value, once per
/// element of a list, not at all for false, nil, an absent name or an empty list) and inverted
/// ones `{{^name}}…{{/name}}`, the test `empty(name)`, comments `{{! … }}`, pragmas `{{% … }}`
/// (read and ignored: escaping is HTML's in every template), and inheritance — `{{<parent}}`
/// around `{{$block}}…{{/block}}` overrides renders the parent with them, whose own
/// `{{$block}}…{{/block}}` holds the default. A line holding only one such tag leaves no blank
/// line (the specification's standalone tags). Values are read by their stored properties'
/// names (`Mirror`). Partials (`{{>…}}`) and delimiter changes are refused.
struct PageTemplate: Sendable {
    /// A template that does not parse: what and on which line.
    struct SyntaxError: Error, CustomStringConvertible {
        let description: String
    }

    /// What a tag names: the current value, a dotted path, or a test of one.
    enum Path: Sendable, Equatable {
        case current
        case names([String])
        case isEmpty([String])
    }

    indirect enum Node: Sendable {
        case text(String)
        case value(Path)
        case section(Path, inverted: Bool, [Node])
        case block(String, [Node])
        case parent(String, overrides: [String: [Node]])
    }

    let nodes: [Node]

    /// Parses `text`.
    init(parsing text: String) throws(SyntaxError) {
        var tokens = try Self.tokens(of: text)
        Self.removeStandaloneLines(&tokens)
        var index = 0
        nodes = try Self.nodes(of: tokens, from: &index, closing: nil)
    }

    // MARK: Tokens

    enum Token {
        case text(String)
        /// A tag: its sigil (`#`, `^`, `/`, `$`, `<`, `!`, `%`, or nil for a value), its name, its line.
        case tag(Character?, String, line: Int)

        var standaloneKind: Bool {
            if case .tag(let sigil?, _, _) = self { return "#^/$<!%".contains(sigil) }
            return false
        }
    }

    static func tokens(of text: String) throws(SyntaxError) -> [Token] {
        var tokens: [Token] = []
        var rest = Substring(text)
        var line = 1
        while let open = rest.firstRange(of: "{{") {
            if open.lowerBound > rest.startIndex { tokens.append(.text(String(rest[..<open.lowerBound]))) }
            line += rest[..<open.lowerBound].filter { $0 == "\n" }.count
            guard let close = rest[open.upperBound...].firstRange(of: "}}") else { throw SyntaxError(description: "line \(line): a tag opened and not closed") }
            let inside = rest[open.upperBound..<close.lowerBound]
            var sigil: Character? = inside.first
            if let first = sigil, "{&".contains(first) {
                throw SyntaxError(description: "line \(line): \(first == "{" ? "{{{…}}}" : "{{&…}}") would show a value unescaped")
            }
            if let first = sigil, ">=".contains(first) {
                throw SyntaxError(description: "line \(line): {{\(first)…}} (\(first == ">" ? "partials" : "changed delimiters")) is not supported")
            }
            if let first = sigil, !"#^/$<!%".contains(first) { sigil = nil }
            let name = (sigil == nil ? inside : inside.dropFirst()).trimmingWhitespace()
            if sigil != "!" && sigil != "%" && name.isEmpty { throw SyntaxError(description: "line \(line): a tag without a name") }
            tokens.append(.tag(sigil, String(name), line: line))
            line += inside.filter { $0 == "\n" }.count
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { tokens.append(.text(String(rest))) }
        return tokens
    }

    /// Mustache's standalone tags: a line holding only a section, inverted, closing, block,
    /// parent, comment or pragma tag (and spaces) is removed with its line break.
    static func removeStandaloneLines(_ tokens: inout [Token]) {
        for i in tokens.indices where tokens[i].standaloneKind {
            // Before it on its line: only spaces (the text since the last line break), or nothing.
            var before: Substring = ""
            var startsLine = i == 0
            if i > 0, case .text(let t) = tokens[i - 1] {
                if let brk = t.lastIndex(of: "\n") { before = t[t.index(after: brk)...]; startsLine = true }
                else if i == 1 { before = Substring(t); startsLine = true }
            }
            guard startsLine, before.allSatisfy({ $0 == " " || $0 == "\t" }) else { continue }
            // After it: spaces, then a line break or the end.
            var afterEnd: String.Index?
            var endsTemplate = i == tokens.count - 1
            if i + 1 < tokens.count, case .text(let t) = tokens[i + 1] {
                let spaces = t.prefix { $0 == " " || $0 == "\t" || $0 == "\r" }
                if spaces.endIndex == t.endIndex {
                    endsTemplate = i + 1 == tokens.count - 1
                    if endsTemplate { afterEnd = t.endIndex }
                }
                else if t[spaces.endIndex] == "\n" { afterEnd = t.index(after: spaces.endIndex) }
            }
            guard afterEnd != nil || endsTemplate else { continue }
            if i > 0, case .text(let t) = tokens[i - 1] { tokens[i - 1] = .text(String(t.dropLast(before.count))) }
            if let end = afterEnd, case .text(let t) = tokens[i + 1] { tokens[i + 1] = .text(String(t[end...])) }
        }
    }

    // MARK: The tree

    static func nodes(of tokens: [Token], from index: inout Int, closing: (name: String, line: Int)?) throws(SyntaxError) -> [Node] {
        var nodes: [Node] = []
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            switch token {
            case .text(let t): if !t.isEmpty { nodes.append(.text(t)) }
            case .tag(nil, let name, let line): nodes.append(.value(try path(name, line: line)))
            case .tag("!", _, _), .tag("%", _, _): continue
            case .tag("/", let name, let line):
                guard let open = closing, open.name == name else {
                    throw SyntaxError(description: "line \(line): {{/\(name)}} closes \(closing.map { "{{#\($0.name)}} of line \($0.line)" } ?? "nothing")")
                }
                return nodes
            case .tag(let sigil?, let name, let line):
                let children = try Self.nodes(of: tokens, from: &index, closing: (name, line))
                switch sigil {
                case "#", "^": nodes.append(.section(try path(name, line: line), inverted: sigil == "^", children))
                case "$": nodes.append(.block(name, children))
                default:  // "<": only the blocks inside count
                    var overrides: [String: [Node]] = [:]
                    for case .block(let block, let content) in children { overrides[block] = content }
                    nodes.append(.parent(name, overrides: overrides))
                }
            }
        }
        if let open = closing { throw SyntaxError(description: "line \(open.line): {{\(open.name)}} is never closed") }
        return nodes
    }

    static func path(_ name: String, line: Int) throws(SyntaxError) -> Path {
        if name == "." { return .current }
        if name.hasPrefix("empty("), name.hasSuffix(")") {
            guard case .names(let names) = try path(String(name.dropFirst(6).dropLast()), line: line) else {
                throw SyntaxError(description: "line \(line): \(name): empty() takes a name")
            }
            return .isEmpty(names)
        }
        let names = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard names.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } }) else {
            throw SyntaxError(description: "line \(line): \(name.debugDescription) is not a name")
        }
        return .names(names)
    }
}
