import Foundation
import RecorderDaemon
import RecorderSystemd
import RecorderTestSupport
import Testing

/// recorderd's log entries reach a real systemd-journald as structured fields when its stderr is
/// the journal stream (JOURNAL_STREAM), and nothing goes to stderr as text. journald runs in a
/// private mount namespace with tmpfs sockets and storage, so the host's journal is untouched.
struct JournalTests {
    @Test(.enabled(if: Privileges.rootTestsEnabled("journald"), "needs root for a private mount namespace with journald; runs under CI"), .ownThread)
    func entriesAreStructuredJournalFields() async throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try TestConfiguration(directory: dir).write()
        let script = """
        set -e
        mkdir -p /run/systemd/journal /run/log
        mount -t tmpfs tmpfs /run/systemd/journal
        mount -t tmpfs tmpfs /run/log
        if [ -d /var/log/journal ]; then mount -t tmpfs tmpfs /var/log/journal; fi
        /lib/systemd/systemd-journald &
        journald=$!
        for _ in $(seq 250); do [ -S /run/systemd/journal/socket ] && break; sleep 0.02; done
        : > '\(dir)/stderr.log'
        export JOURNAL_STREAM=$(stat -c %d:%i '\(dir)/stderr.log')
        '\(ChildProcess.executable("recorderd"))' --config '\(dir)/recorderd.json' --socket '\(dir)/control.sock' 2>>'\(dir)/stderr.log' &
        daemon=$!
        for _ in $(seq 500); do [ -S '\(dir)/control.sock' ] && break; sleep 0.02; done
        kill -TERM $daemon
        status=0; wait $daemon || status=$?
        journalctl --sync || true
        journalctl -D /run/log/journal --no-pager -o json SYSLOG_IDENTIFIER=recorderd > '\(dir)/journal.json'
        kill -9 $journald
        exit $status
        """
        let p = try await ChildProcess("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/bash", "-c", script])
        let status = try await p.wait(timeout: 60)
        #expect(status == 0, "\(p.printed)")
        let entries = try String(contentsOfFile: dir + "/journal.json", encoding: .utf8).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let opened = try #require(entries.first { $0["MESSAGE"] as? String == "device opened" }, "entries: \(entries.map { $0["MESSAGE"] ?? "" })")
        #expect(opened["PRIORITY"] as? String == "6")
        #expect(opened["RECORDERD_DEVICE"] as? String == "imu0")
        #expect(opened["RECORDERD_RATE"] as? String == "100.0")
        #expect((opened["CODE_FILE"] as? String)?.hasSuffix("Device.swift") == true)
        #expect(opened["_TRANSPORT"] as? String == "journal", "sent with sd_journal_sendv, not as a stream line")
        #expect(entries.contains { $0["MESSAGE"] as? String == "recordings closed" }, "shutdown is logged too")
        let stderr = try String(contentsOfFile: dir + "/stderr.log", encoding: .utf8)
        #expect(stderr.isEmpty, "nothing as text on stderr: \(stderr)")
    }

    @Test func fieldsAndPriorities() {
        let fields = JournalLogHandler.fields(level: .warning, message: "device unavailable", metadata: ["device": "imu0", "sl-service": "x"],
                                              identifier: "recorderd", file: "Device.swift", function: "probe()", line: 7)
        #expect(fields == ["MESSAGE=device unavailable", "PRIORITY=4", "SYSLOG_IDENTIFIER=recorderd", "CODE_FILE=Device.swift",
                           "CODE_LINE=7", "CODE_FUNC=probe()", "RECORDERD_DEVICE=imu0", "RECORDERD_SL_SERVICE=x"])
        #expect(JournalLogHandler.priority(.critical) == 2)
        #expect(JournalLogHandler.priority(.debug) == 7)
        #expect(!JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "1:2"]))
        #expect(!JournalLogHandler.stderrIsJournal(environment: [:]))
    }
}
