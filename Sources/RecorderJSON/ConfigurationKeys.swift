/// The keys a configuration knows, to warn about the ones it does not: a typo such as
/// `"ringSecnds"` would otherwise be ignored without a word and the default used.
public indirect enum ConfigurationKeys: Sendable {
    /// Anything (a value, or a map whose keys are data, such as a replay device's `columns`).
    case any
    /// An object with these keys; an object value of another type is not checked.
    case object([String: ConfigurationKeys])
    /// An array whose elements are `element`.
    case array(ConfigurationKeys)
    /// An array of objects whose keys depend on the value of their member `tag` (`kind` of a
    /// device entry, `type` of an async action); an unknown value is not checked (it is an
    /// error of its own).
    case tagged(by: String, [String: ConfigurationKeys])

    /// Warnings for every key of `value` this schema does not know, each with its JSON path and,
    /// when one is close, the known key meant: `devices[0].frequncy: unknown key; did you mean frequency?`.
    public func unknownKeys(in value: JSONValue, path: String = "") -> [String] {
        switch (self, value) {
        case (.object(let known), .object(let members)):
            return members.keys.sorted().flatMap { key -> [String] in
                let keyPath = path.isEmpty ? key : path + "." + key
                guard let schema = known[key] else {
                    let suggestion = Self.nearest(to: key, among: known.keys).map { "; did you mean \($0)?" } ?? ""
                    return ["\(keyPath): unknown key" + suggestion]
                }
                return schema.unknownKeys(in: members[key]!, path: keyPath)
            }
        case (.array(let element), .array(let items)):
            return items.enumerated().flatMap { element.unknownKeys(in: $1, path: "\(path)[\($0)]") }
        case (.tagged(let tag, let kinds), .array(let items)):
            return items.enumerated().flatMap { i, item -> [String] in
                guard let kind = item[tag]?.stringValue, let schema = kinds[kind] else { return [] }
                return schema.unknownKeys(in: item, path: "\(path)[\(i)]")
            }
        default:
            return []
        }
    }

    /// The known key `key` most likely meant: at most a third of its letters (and at least one)
    /// different, ignoring case; nil when none is that close.
    package static func nearest(to key: String, among known: some Sequence<String>) -> String? {
        let limit = max(1, key.count / 3)
        var best: (key: String, distance: Int)?
        for candidate in known.sorted() {
            let d = editDistance(key.lowercased(), candidate.lowercased())
            if d <= limit, d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        return best?.key
    }

    /// Levenshtein distance (insertions, deletions, substitutions), with transpositions of
    /// neighbours counted once (`lenght` → `length` is one typo).
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}

extension ConfigurationKeys {
    /// An object whose keys are `keys`, none of them checked further.
    public static func keys(_ keys: some Sequence<String>) -> ConfigurationKeys {
        .object(Dictionary(keys.map { ($0, ConfigurationKeys.any) }, uniquingKeysWith: { a, _ in a }))
    }

    /// This object's keys with `other`'s added (a device's backend keys and its stages' keys).
    public func merging(_ other: [String: ConfigurationKeys]) -> ConfigurationKeys {
        guard case .object(let known) = self else { return self }
        return .object(known.merging(other) { a, _ in a })
    }
}
