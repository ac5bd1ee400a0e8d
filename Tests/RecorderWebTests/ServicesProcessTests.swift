import Foundation
import RecorderClient
import RecorderModel
import RecorderProtocol
import RecorderTestSupport
import Testing

/// The web page (and the fleet link) run in recorderd's services process, not in the recording
/// process: as the kernel maps them, as they end and start again, and as the daemon stops.
@Suite struct ServicesProcessTests {
    /// The libraries a process has mapped (/proc/PID/maps), by file name.
    static func mappedLibraries(_ pid: Int32) throws -> Set<String> {
        // Read to the end: the kernel hands the file out a page at a time.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
        defer { try? handle.close() }
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        return Set(maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).last.flatMap { $0.hasPrefix("/") ? String($0.split(separator: "/").last!) : nil }
        })
    }

    /// A process's state, parent and signal masks as the kernel lists them (for a failure's message).
    static func processStatus(_ pid: Int32) -> String {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? "gone"
        return status.split(separator: "\n").filter { ["State", "PPid", "SigBlk", "SigIgn", "SigCgt", "Threads"].contains($0.split(separator: ":").first ?? "") }
            .joined(separator: "; ")
    }

    /// Gone, or a zombie no one has reaped yet.
    static func ended(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    @Test(.timeLimit(.minutes(2)), .ownThread)
    func neitherProcessMapsFoundationAndThePageComesBackAfterItsProcessIsKilled() async throws {
        let web = try await WebHarness.start()
        let services = try #require(web.daemon.onlyChild, "recorderd's services process")
        let daemonLibraries = try Self.mappedLibraries(web.daemon.pid)
        let servicesLibraries = try Self.mappedLibraries(services)
        // The kernel's word: FoundationEssentials in both, all of Foundation and ICU in neither;
        // zlib (the zip archives) in the services process.
        #expect(daemonLibraries.contains("libFoundationEssentials.so"), "\(daemonLibraries.sorted())")
        #expect(servicesLibraries.contains("libFoundationEssentials.so") && servicesLibraries.contains { $0.hasPrefix("libz.so.1") }, "\(servicesLibraries.sorted())")
        for library in ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so"] {
            #expect(!daemonLibraries.contains(library), "recorderd maps \(library)")
            #expect(!servicesLibraries.contains(library), "the services process maps \(library)")
        }
        #expect(try String(contentsOfFile: "/proc/\(services)/comm", encoding: .utf8) == "recorderd-servi\n")

        // A recording goes on while the page's process is killed and started again.
        let client = try await RecorderClient.connect(socketPath: web.socket)
        // daemon.status names it (the kernel's child list is the independent word).
        let page = WebPageInfo(state: .listening, address: "http://127.0.0.1:\(web.port)/")
        #expect(try await client.status().services == ServicesProcessInfo(pid: services, starts: 1, page: page))
        let run = try await client.startTask(identifier: "t", asyncActions: [.motion("m")])
        kill(services, SIGKILL)
        #expect(try await ProcessEnd.await(services, timeout: 10))
        // Started again: the page says it listens a second time.
        #expect(try await web.pageListening(times: 2), "\(web.daemon.printedSoFar())")
        let again = try #require(web.daemon.onlyChild, "no services process after the kill")
        #expect(again != services)
        #expect(LoopbackTCP.statusLine(port: web.port, path: "/api/status", timeout: 5) == "HTTP/1.1 200 OK")
        #expect(web.daemon.printedSoFar().contains("services process ended; starting it again"))
        #expect(try await client.status().services == ServicesProcessInfo(pid: again, starts: 2, lastEnd: "signal 9", page: page))
        let printed = try await ChildProcess(ChildProcess.executable("recorderctl"), ["status", "--socket", web.socket])
        #expect(try await printed.wait(timeout: 20) == 0)
        #expect(printed.printed.contains("web page and fleet link (recorderd-services): running, pid \(again), started 2 times; the last one ended with signal 9"),
                "\(printed.printed)")
        let result = try await run.finish()
        let file = try #require(result.asyncResults.compactMap(\.file).first)
        #expect(file.sampleCount > 0 && file.droppedSamples == 0 && file.gapCount == 0)
        client.close()

        // Stopped with the daemon: SIGTERM ends both, the daemon with status 0.
        #expect(try await web.stop() == 0, "\(web.daemon.printed)")
        #expect(Self.ended(again))
    }

    /// Ready means ready: the page listens before the control socket answers and before READY=1
    /// (recorderd binds its socket once the services process has said the page listens), so a
    /// client that connects to the page the moment recorderd is ready is answered — bound to
    /// 0.0.0.0 with a token, as a tablet's page is, and with a busy core beside it (a build, say),
    /// where 1 start in 3 once found the port refusing. The daemon's own log has the order.
    @Test(.timeLimit(.minutes(3)), .ownThread)
    func thePageAnswersTheMomentRecorderdIsReadyBesideABusyCore() async throws {
        let busy = try await ChildProcess("/bin/sh", ["-c", "while :; do :; done"])
        defer { kill(busy.pid, SIGKILL) }
        for start in 1...3 {
            // Returns at READY=1, without waiting for the page's line.
            let web = try await WebHarness.start(host: "0.0.0.0", token: "tablet-page-token-2026", awaitingPage: false, logLevel: "info")
            let line = LoopbackTCP.statusLine(port: web.port, path: "/api/status", timeout: 10)
            #expect(line?.hasPrefix("HTTP/1.1 ") == true, "start \(start): the page did not answer at READY=1: \(line ?? "refused or silent"); \(web.daemon.printedSoFar())")
            let printed = web.daemon.printedSoFar()
            let page = printed.range(of: "web page listening"), socket = printed.range(of: "control socket listening")
            #expect(page != nil && socket != nil && page!.lowerBound < socket!.lowerBound, "start \(start): \(printed)")
            let client = try await RecorderClient.connect(socketPath: web.socket)
            #expect(try await client.status().services?.page == WebPageInfo(state: .listening, address: "http://0.0.0.0:\(web.port)/"))
            client.close()
            #expect(try await web.stop() == 0, "\(web.daemon.printed)")
        }
    }

    @Test(.timeLimit(.minutes(2)), .ownThread)
    func aKilledDaemonLeavesNoPageBehind() async throws {
        let web = try await WebHarness.start()
        let services = try #require(web.daemon.onlyChild, "recorderd's services process")
        let command = (try? String(contentsOfFile: "/proc/\(services)/cmdline", encoding: .utf8)) ?? "?"
        _ = try await web.daemon.stop(signal: SIGKILL)
        // The parent-death signal: the services process ends on its own, and the port is free.
        let ended = try await ProcessEnd.await(services, timeout: 20)
        #expect(ended, "process \(services) (\(command.replacingOccurrences(of: "\0", with: " "))) still runs: \(Self.processStatus(services)); recorderd printed: \(web.daemon.printed)")
        #expect(!LoopbackTCP.accepts(port: web.port))
    }
}
