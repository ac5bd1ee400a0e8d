import CSystemd
import FoundationEssentials
import Glibc
import Logging

/// A swift-log handler writing structured entries to the systemd journal with `sd_journal_sendv`
/// (`sd_journal_send` is variadic, which Swift cannot call): MESSAGE, PRIORITY,
/// SYSLOG_IDENTIFIER, CODE_FILE/LINE/FUNC, and each metadata key as a `RECORDERD_<KEY>` field.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    let identifier: String

    public init(identifier: String = "recorderd", logLevel: Logger.Level = .info) {
        self.identifier = identifier
        self.logLevel = logLevel
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let explicit = event.metadata { all.merge(explicit) { $1 } }
        if let error = event.error { all["error"] = "\(error)" }
        let fields = Self.fields(level: event.level, message: "\(event.message)", metadata: all, identifier: identifier,
                                 file: event.file, function: event.function, line: event.line)
        Self.send(fields)
    }

    /// The journal fields of one entry, `NAME=value` each.
    public static func fields(level: Logger.Level, message: String, metadata: Logger.Metadata, identifier: String,
                              file: String, function: String, line: UInt) -> [String] {
        var fields = ["MESSAGE=\(message)", "PRIORITY=\(priority(level))", "SYSLOG_IDENTIFIER=\(identifier)",
                      "CODE_FILE=\(file)", "CODE_LINE=\(line)", "CODE_FUNC=\(function)"]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            fields.append("RECORDERD_\(fieldName(key))=\(value)")
        }
        return fields
    }

    /// syslog priorities: debug 7 … critical 2.
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// A journal field name: upper-case letters, digits and underscores.
    public static func fieldName(_ key: String) -> String {
        String(key.uppercased().unicodeScalars.map { ("A"..."Z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" }.prefix(54))
    }

    static func send(_ fields: [String]) {
        var storage = fields.map { Array($0.utf8) }
        var vectors: [iovec] = []
        vectors.reserveCapacity(storage.count)
        for i in storage.indices {
            storage[i].withUnsafeMutableBytes { vectors.append(iovec(iov_base: $0.baseAddress, iov_len: $0.count)) }
        }
        // The byte arrays stay alive (and unmoved) until the call returns.
        withExtendedLifetime(storage) { _ = sd_journal_sendv(vectors, Int32(vectors.count)) }
    }

    /// True when stderr is connected to the journal (systemd sets `JOURNAL_STREAM` to its
    /// `device:inode`): then entries go to the journal with their fields, not as text lines.
    public static func stderrIsJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        var s = stat()
        guard fstat(2, &s) == 0 else { return false }
        return stream == "\(s.st_dev):\(s.st_ino)"
    }
}

extension JournalLogHandler {
    /// The logging of recorderd's programs: the journal's format when standard error is the
    /// journal (`JOURNAL_STREAM`), plain lines otherwise; messages below `level` left out.
    public static func bootstrap(level: Logger.Level) {
        let journal = stderrIsJournal()
        LoggingSystem.bootstrap { label in
            if journal { return JournalLogHandler(logLevel: level) }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
