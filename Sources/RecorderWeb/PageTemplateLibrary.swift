/// The page's templates by name, rendered with values (`PageTemplate`): a template's
/// `{{<name}}` is another of the library's.
struct PageTemplateLibrary: Sendable {
    private var templates: [String: PageTemplate] = [:]
    /// How deep `{{<parent}}` may nest (a template that includes itself stops there).
    static let maximumDepth = 16

    /// Adds `text` as the template `name`.
    mutating func register(_ text: String, named name: String) throws(PageTemplate.SyntaxError) {
        do {
            templates[name] = try PageTemplate(parsing: text)
        } catch {
            throw PageTemplate.SyntaxError(description: "\(name): \(error.description)")
        }
    }

    /// `value` rendered with the template `name`, each value HTML-escaped by `escape`; nil when
    /// there is no such template.
    func render(_ value: Any, withTemplate name: String, escape: (String) -> String) -> String? {
        guard let template = templates[name] else { return nil }
        var out = ""
        render(template.nodes, stack: [value], overrides: [:], depth: 0, escape: escape, into: &out)
        return out
    }

    private func render(_ nodes: [PageTemplate.Node], stack: [Any], overrides: [String: [PageTemplate.Node]], depth: Int,
                        escape: (String) -> String, into out: inout String) {
        for node in nodes {
            switch node {
            case .text(let text):
                out += text
            case .value(let path):
                if let value = Self.lookUp(path, in: stack) { out += escape(Self.text(of: value)) }
            case .section(let path, let inverted, let children):
                let value = Self.lookUp(path, in: stack)
                guard Self.isShown(value) != inverted else { continue }
                if inverted {
                    render(children, stack: stack, overrides: overrides, depth: depth, escape: escape, into: &out)
                } else if let value, let elements = Self.elements(of: value) {
                    for element in elements {
                        render(children, stack: stack + [element], overrides: overrides, depth: depth, escape: escape, into: &out)
                    }
                } else if let value, !(value is Bool) {
                    render(children, stack: stack + [value], overrides: overrides, depth: depth, escape: escape, into: &out)
                } else {
                    render(children, stack: stack, overrides: overrides, depth: depth, escape: escape, into: &out)
                }
            case .block(let name, let children):
                render(overrides[name] ?? children, stack: stack, overrides: overrides, depth: depth, escape: escape, into: &out)
            case .parent(let name, let own):
                guard depth < Self.maximumDepth, let parent = templates[name] else { continue }
                // The outer template's overrides win over the inner's (Mustache's inheritance).
                render(parent.nodes, stack: stack, overrides: own.merging(overrides) { _, outer in outer }, depth: depth + 1,
                       escape: escape, into: &out)
            }
        }
    }

    // MARK: Values

    /// The value a path names: the first of the stack (innermost first) that has its first name,
    /// then each further name inside it.
    static func lookUp(_ path: PageTemplate.Path, in stack: [Any]) -> Any? {
        switch path {
        case .current:
            return stack.last.flatMap(unwrapped)
        case .names(let names):
            for context in stack.reversed() {
                guard var value = child(of: context, named: names[0]) else { continue }
                for name in names.dropFirst() {
                    guard let next = child(of: value, named: name) else { return nil }
                    value = next
                }
                return unwrapped(value)
            }
            return nil
        case .isEmpty(let names):
            guard let value = lookUp(.names(names), in: stack) else { return true }
            return elements(of: value).map(\.isEmpty) ?? false
        }
    }

    /// A stored property's value, nil when `value` has no such property (or is nil).
    static func child(of value: Any, named name: String) -> Any? {
        guard let value = unwrapped(value) else { return nil }
        return Mirror(reflecting: value).children.first { $0.label == name }.map(\.value)
    }

    /// `value` without its optionals; nil for nil.
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }

    /// A list's elements; nil for a value that is not a list.
    static func elements(of value: Any) -> [Any]? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .collection || mirror.displayStyle == .set else { return nil }
        return mirror.children.map(\.value)
    }

    /// Whether a section shows: not for nil, false or an empty list.
    static func isShown(_ value: Any?) -> Bool {
        guard let value else { return false }
        if let flag = value as? Bool { return flag }
        if let elements = elements(of: value) { return !elements.isEmpty }
        return true
    }

    static func text(of value: Any) -> String {
        if let text = value as? String { return text }
        if let text = value as? Substring { return String(text) }
        if let text = value as? any CustomStringConvertible { return text.description }
        return String(describing: value)
    }
}
