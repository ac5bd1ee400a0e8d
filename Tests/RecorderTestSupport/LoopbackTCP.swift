import Foundation

/// TCP on 127.0.0.1 for tests: a free port, a listener that takes a port, whether a port accepts.
public enum LoopbackTCP {
    static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    /// A port nothing is bound to now, below the kernel's ephemeral range: a port from that range
    /// (the kernel's pick for port 0) can be taken, before the test's server binds it, as the
    /// local port of any outgoing connection — seen in CI: RabbitMQ's distribution port
    /// "already used" by a socket that was not Erlang's. Random, checked by binding; the kernel's
    /// pick when 100 tries found none.
    /// `datagram`: a UDP port (an NTP server's, chronyd's command port) rather than TCP.
    public static func freePort(datagram: Bool = false) -> Int {
        let ephemeral = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } } ?? 32768
        if ephemeral > 12000 {
            for _ in 0..<100 {
                let port = Int.random(in: 10000..<ephemeral)
                if bindable(port, datagram: datagram) { return port }
            }
        }
        let fd = socket(AF_INET, Int32(datagram ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = address(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether a socket can be bound to `port` on loopback (and on every address: servers such as
    /// epmd or Erlang's distribution bind the wildcard) now.
    static func bindable(_ port: Int, datagram: Bool = false) -> Bool {
        for loopbackOnly in [true, false] {
            let fd = socket(AF_INET, Int32(datagram ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = address(port: port)
            if !loopbackOnly { address.sin_addr.s_addr = 0 }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            if !bound { return false }
        }
        return true
    }

    /// A socket listening on `port` (to take the address); the caller closes it.
    public static func listen(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = address(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard bound, Foundation.listen(fd, 1) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return fd
    }

    /// How many TCP connections to `port` process `pid` holds open, accepted (as the kernel lists
    /// them: an established socket in /proc/PID/net/tcp whose local port is `port` and whose
    /// inode is one of the process's descriptors). Connections waiting in the listener's backlog
    /// are not the process's yet and do not count; nil when /proc cannot be read.
    public static func acceptedConnections(pid: Int32, port: Int) -> Int? {
        // Read to the end: the kernel hands the table out a page at a time.
        guard let bytes = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/net/tcp")).readToEnd(),
              let table = String(bytes: bytes, encoding: .utf8),
              let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") else { return nil }
        let localPort = ":" + String(format: "%04X", port)
        // Columns: sl, local address, remote address, state (01: established), …, inode (10th).
        let inodes = Set(table.split(separator: "\n").dropFirst().compactMap { line -> Substring? in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count > 9, columns[1].hasSuffix(localPort), columns[3] == "01", columns[9] != "0" else { return nil }
            return columns[9]
        })
        return descriptors.count { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)"),
                  target.hasPrefix("socket:["), target.hasSuffix("]") else { return false }
            return inodes.contains(target.dropFirst(8).dropLast())
        }
    }

    /// True when something accepts connections on `port`.
    public static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = address(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A connection to `port` (close-on-exec; the caller closes it), or nil when none was made.
    /// `source`: the loopback address it comes from (any of 127.0.0.0/8: another client).
    public static func connect(port: Int, from source: String? = nil) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard bound else {
                close(fd)
                return nil
            }
        }
        var address = address(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if connected { return fd }
        close(fd)
        return nil
    }

    /// Sends `GET path` on a new connection to `port` and returns the response's status line, or
    /// nil when none came within `timeout` seconds.
    public static func statusLine(port: Int, path: String, timeout: Double) -> String? {
        guard let fd = connect(port: port) else { return nil }
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return nil }
        return statusLine(fd, timeout: timeout)
    }

    /// The first line `fd` receives (an HTTP status line), or nil when the connection ends or
    /// `timeout` seconds pass first.
    public static func statusLine(_ fd: Int32, timeout: Double) -> String? {
        let deadline = Deadline(seconds: timeout)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !deadline.hasPassed {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(max(1, deadline.remaining * 1000))) > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n <= 0 { break }
            received += chunk[0..<n]
            if let end = received.firstIndex(of: UInt8(ascii: "\r")) { return String(decoding: received[..<end], as: UTF8.self) }
        }
        return nil
    }
}
