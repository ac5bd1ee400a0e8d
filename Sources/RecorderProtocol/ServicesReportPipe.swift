import Glibc
import RecorderJSON

/// What the services process reports, each a JSON line (`ServicesReport`) written to a
/// descriptor: `recorderd-services`' 3, a pipe recorderd reads for `daemon.status` and for its
/// start (the control socket answers once the page has said whether it listens). Writes never
/// wait: the descriptor is made non-blocking, and a report that finds the pipe full (recorderd not
/// reading) is dropped — a later one says where things stand.
public struct ServicesReportPipe: Sendable {
    let descriptor: Int32

    /// Writes to `descriptor` (inherited, open for writing); nil when it is not open.
    public init?(descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0 else { return nil }
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        self.descriptor = descriptor
    }

    /// Writes `report` as one line (all of it or, when the pipe is full or gone, nothing).
    public func send(_ report: ServicesReport) {
        guard var line = try? JSONTextEncoder().encode(report), line.count < ServicesReport.maximumBytes else { return }
        line.append(UInt8(ascii: "\n"))
        // A pipe takes a write of up to PIPE_BUF (4096) bytes whole or not at all.
        while true {
            let n = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            return
        }
    }
}
