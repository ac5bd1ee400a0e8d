import Foundation

/// A real chronyd (Debian's `chrony`) for one test, on loopback ports of its own, never touching
/// the clock (`-x`): a server of its local clock (`local stratum 8`), or a follower of such a
/// server. Started in the foreground (`-d`, its log on the pipe), stopped by its PID.
public struct ChronyDaemon: Sendable {
    public let process: ChildProcess
    /// Its NTP port (a server's; 0 for a follower, which serves no one).
    public let ntpPort: Int
    /// Its command port (what `chronyc -h 127.0.0.1 -p` and recorderd's `clock.chrony` name).
    public let commandPort: Int
    public let directory: String

    /// Whether the chrony tests run: always under CI (which installs chrony and runs as root;
    /// missing, they fail), elsewhere as root with chrony installed (chronyd refuses to start
    /// as another user), else a printed reason.
    public static func testsEnabled(_ name: String) -> Bool {
        if Privileges.isCI { return true }
        guard Privileges.isRoot, FileManager.default.isExecutableFile(atPath: "/usr/sbin/chronyd"),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/chronyc") else {
            print("SKIP \(name): needs root and Debian's chrony (scripts/setup.sh); runs under CI")
            return false
        }
        return true
    }

    /// A server of its own clock at stratum 8, answering loopback clients on `port` (a follower
    /// may have been told it before the server runs) or a free one.
    public static func server(port chosen: Int? = nil) async throws -> ChronyDaemon {
        let port = chosen ?? LoopbackTCP.freePort(datagram: true)
        return try await start(ntpPort: port, lines: ["local stratum 8", "allow 127.0.0.1", "port \(port)"])
    }

    /// A follower of the server on `serverPort` (polled every quarter second, as soon as it
    /// answers), which may not run yet: the follower is then unsynchronised.
    public static func follower(of serverPort: Int) async throws -> ChronyDaemon {
        try await start(ntpPort: 0, lines: ["server 127.0.0.1 port \(serverPort) iburst minpoll -2 maxpoll -2", "port 0"])
    }

    static func start(ntpPort: Int, lines: [String]) async throws -> ChronyDaemon {
        let directory = try Fixtures.temporaryDirectory()
        let commandPort = LoopbackTCP.freePort(datagram: true)
        // No Unix command socket (`/`: the default path is the system chronyd's), no drift file.
        let configuration = (lines + ["cmdport \(commandPort)", "bindcmdaddress 127.0.0.1", "bindcmdaddress /",
                                      "pidfile \(directory)/chronyd.pid"]).joined(separator: "\n") + "\n"
        try configuration.write(toFile: directory + "/chrony.conf", atomically: true, encoding: .utf8)
        let process = try await ChildProcess("/usr/sbin/chronyd", ["-x", "-d", "-u", "root", "-f", directory + "/chrony.conf"])
        // Its sockets are open once it says which privileges it runs with (after binding them).
        guard try await process.printed(where: { $0.contains("Running with root privileges") }, timeout: 30) != nil else {
            _ = try? await process.stop(signal: SIGKILL)
            throw ChronyError(description: "chronyd did not start: \(process.printedSoFar())")
        }
        return ChronyDaemon(process: process, ntpPort: ntpPort, commandPort: commandPort, directory: directory)
    }

    /// Waits until this follower has selected its server (its log says so).
    public func synchronised(timeout: Double = 60) async throws {
        guard try await process.printed(where: { $0.contains("Selected source 127.0.0.1") }, timeout: timeout) != nil else {
            throw ChronyError(description: "chronyd never selected its server: \(process.printedSoFar())")
        }
    }

    /// What `chronyc` itself prints for `command` (`tracking`, or `-c tracking`) against this daemon.
    public func chronyc(_ arguments: [String]) async throws -> String {
        let run = try await ChildProcess.run("/usr/bin/chronyc", ["-h", "127.0.0.1", "-p", "\(commandPort)", "-n"] + arguments, timeout: 30)
        return run.printed
    }

    public func stop() async throws {
        _ = try await process.stop()
    }

    struct ChronyError: Error, CustomStringConvertible { let description: String }
}
