import Dispatch
import FoundationEssentials
import Glibc
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// A connection to recorderd's control socket (async/await).
///
/// ```swift
/// let client = try await RecorderClient.connect(socketPath: "/run/recorderd/control.sock")
/// let run = try await client.startTask(identifier: "walk", asyncActions: [.motion("motion")])
/// try await run.startStep("walk/walking.outbound")
/// try await run.finishStep("walk/walking.outbound")
/// let result = try await run.finish()
/// ```
/// Reads on its own thread; writes on a serial queue; never blocks the cooperative pool. A task
/// that makes many calls in a row can run them on the reader thread (`withReaderExecutor`).
public final class RecorderClient: Sendable {
    /// A call waiting for its response. The response travels through `response` (a lock TSan
    /// sees), not through the continuation.
    typealias Pending = (continuation: CheckedContinuation<Void, any Error>, response: LockedValue<JSONRPCMessage?>,
                         onResponse: (@Sendable (JSONRPCMessage) -> Void)?)

    struct State {
        var nextID: Int64 = 1
        var pending: [Int64: Pending] = [:]
        var streams: [Int: LiveSink] = [:]
        var closed = false
        /// The daemon's refusal of the connection (an error with a null id, before it closes):
        /// what the calls then still waiting fail with, instead of `connectionClosed`.
        var refusal: RPCError?
        /// The `step.summary` notifications received, oldest first (at most `keptFinalSummaries`).
        var finalSummaries: [StepSummaryParams] = []
    }

    /// How many final summaries the client keeps (`finalSummaries(of:)`).
    public static let keptFinalSummaries = 256

    let socket: ClientSocket
    /// The reader thread as a task executor: see `withReaderExecutor`.
    public let executor: ClientExecutor
    private let state = LockedValue(State())
    private let writeQueue = DispatchQueue(label: "recorderd.client.write")

    init(socket: ClientSocket, executor: ClientExecutor) {
        self.socket = socket
        self.executor = executor
    }

    /// Connects to the daemon's socket.
    public static func connect(socketPath: String) async throws(RecorderClientError) -> RecorderClient {
        // Close-on-exec: a child the client's program starts must not hold the connection.
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .connectionFailed(String(cString: strerror(errno))) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(socketPath.utf8)
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(fd)
            throw .connectionFailed("socket path too long: \(socketPath)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in pathBytes.enumerated() { raw[i] = b }
            raw[pathBytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .connectionFailed("\(socketPath): \(message)")
        }
        return start(descriptor: fd)
    }

    /// A client over a connected stream socket (owned from here on), with its reader thread.
    static func start(descriptor fd: Int32) -> RecorderClient {
        let executor = ClientExecutor()
        let socket = ClientSocket(fd: fd)
        let client = RecorderClient(socket: socket, executor: executor)
        // The reader holds the socket, not the client: a client nobody holds is closed by deinit.
        ThreadName.start("recorderd.client.read") { [weak client] in RecorderClient.readLoop(socket: socket, executor: executor) { client } }
        return client
    }

    deinit {
        socket.shutdown()
    }

    /// Closes the connection; pending calls fail with `connectionClosed`. Task runs keep running.
    public func close() {
        socket.shutdown()
    }

    /// Runs `body` with the client's reader thread as its preferred executor
    /// (`withTaskExecutorPreference`): each reply resumes the waiting call on the thread that read
    /// it, instead of waking a thread of the cooperative pool. That saves a wake-up per call, which
    /// is most of a `step.start` round trip's time on a machine where waking a thread on another
    /// CPU is slow. Entering and leaving cost a hop each, so wrap a sequence of calls, not one.
    ///
    /// `body` (and what it awaits without an executor of its own) runs on the reader thread: it
    /// must not block, or the connection's replies and streams wait for it. Child tasks inherit
    /// the preference. After the connection has ended, `body` goes on on the global executor.
    public func withReaderExecutor<T, Failure: Error>(isolation: isolated (any Actor)? = #isolation,
                                                      _ body: () async throws(Failure) -> T) async throws(Failure) -> T {
        executor.arm()
        return try await withTaskExecutorPreference(executor, isolation: isolation, operation: body)
    }

    // MARK: Calls

    /// Sends a request and decodes its result.
    ///
    /// The params are encoded once (`JSONTextEncoder`), into the request line; the result is decoded
    /// straight from the parsed response (`JSONValueDecoder`: integers range-checked, dates as
    /// ISO-8601 strings), with no second serialisation in between.
    public func call<Params: Encodable & Sendable, Result: Decodable>(_ method: ControlMethod, _ params: Params, as: Result.Type = Result.self,
                                                                      onResponse: (@Sendable (JSONRPCMessage) -> Void)? = nil) async throws(RecorderClientError) -> Result {
        let encoded: [UInt8]
        do {
            encoded = try JSONTextEncoder().encode(params)
        } catch {
            throw .invalidResponse("cannot encode params: \(error)")
        }
        let message = try await send(method: method.rawValue, encodedParams: encoded, onResponse: onResponse)
        if let error = message.error { throw .rpc(error) }
        do {
            return try JSONValueDecoder().decode(Result.self, from: message.result ?? .null)
        } catch {
            throw .invalidResponse(DecodingErrorDescription.describe(error, prefix: "result"))
        }
    }

    /// Sends one raw request; returns the response message.
    public func send(method: String, params: JSONValue?, onResponse: (@Sendable (JSONRPCMessage) -> Void)? = nil) async throws(RecorderClientError) -> JSONRPCMessage {
        var encoded: [UInt8]?
        if let params {
            do {
                encoded = try JSONTextEncoder().encode(params)
            } catch {
                throw .invalidResponse("cannot encode request")
            }
        }
        return try await send(method: method, encodedParams: encoded, onResponse: onResponse)
    }

    /// Sends a request whose params are already JSON text (nil: no params member).
    ///
    /// A line the daemon could not read (longer than `ControlLine.maximumLength`, nested
    /// deeper than its parser allows) is not sent: the call throws the error the daemon would have
    /// answered (`-32009`, `-32700`) and the connection stays open.
    func send(method: String, encodedParams: [UInt8]?, onResponse: (@Sendable (JSONRPCMessage) -> Void)?) async throws(RecorderClientError) -> JSONRPCMessage {
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        let line = try Self.requestLine(id: id, method: method, encodedParams: encodedParams)
        let response = LockedValue<JSONRPCMessage?>(nil)
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let refused: RecorderClientError? = state.withLock { s in
                    guard !s.closed else { return s.refusal.map { .rpc($0) } ?? .connectionClosed }
                    s.pending[id] = (continuation, response, onResponse)
                    return nil
                }
                if let refused {
                    continuation.resume(throwing: refused)
                    return
                }
                socket.send(line, queue: writeQueue)
            }
            guard let message = response.withLock({ $0 }) else { throw RecorderClientError.connectionClosed }
            return message
        } catch let error as RecorderClientError {
            throw error
        } catch {
            throw .connectionClosed
        }
    }

    /// `{"jsonrpc":"2.0","id":…,"method":…,"params":…}` and a newline; throws what the daemon
    /// would answer to a line it cannot read.
    static func requestLine(id: Int64, method: String, encodedParams: [UInt8]?) throws(RecorderClientError) -> Data {
        var bytes = JSONRPCEncoder.request(id: JSONRPCID(id), method: method, encodedParams: encodedParams, newline: false)
        guard bytes.count <= ControlLine.maximumLength else {
            throw .rpc(RPCError(.requestTooLarge, "request line of \(bytes.count) bytes is longer than \(ControlLine.maximumLength >> 20) MiB; not sent"))
        }
        // The encoder writes nothing the daemon's parser refuses but nesting: a line with more
        // opening brackets than the parser's depth goes through that parser first.
        var opened = 0
        for byte in bytes where byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") { opened += 1 }
        if opened > JSONParser.defaultMaximumDepth {
            do {
                _ = try JSONRPCRequest.parse(line: bytes)
            } catch where error.id == .null {
                // An error the daemon could not tie to this call.
                throw .rpc(RPCError(code: error.error.code, message: error.error.message + "; not sent"))
            } catch {
                // The daemon answers this one itself, to this call's id.
            }
        }
        bytes += "\n".utf8
        return Data(bytes)
    }

    // MARK: Reading

    /// The reader thread: reads and dispatches lines, and runs the jobs of tasks that prefer
    /// `executor` whenever it would otherwise wait.
    static func readLoop(socket: ClientSocket, executor: ClientExecutor, client: () -> RecorderClient?) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        // The strings of the last records read (their sensor types repeat), for every notification.
        var records = JSONLinesDecoder.Cache()
        executor.adoptCurrentThread()
        while true {
            executor.runQueued()
            guard executor.wait(forReading: socket.readerDescriptor) else { continue }
            let n = socket.receive(into: &chunk)
            if n <= 0 { break }
            buffer.append(contentsOf: chunk[0..<n])
            var start = 0
            while let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[start..<newline]
                start = newline + 1
                // Live records as the daemon writes them are read record by record (no JSON tree);
                // anything else, as any message.
                if let batch = StreamRecordsNotification.parse(line, cache: &records).map(LiveBatch.init) {
                    client()?.deliver(batch)
                } else if let message = try? JSONRPCMessage.parse(line: line) {
                    client()?.dispatch(message)
                }
            }
            buffer.removeFirst(start)
        }
        client()?.failAll()
        executor.runQueued(closing: true)
        socket.close()
    }

    /// The connection ended: pending calls fail, streams finish.
    func failAll() {
        let (pending, streams, refusal) = state.withLock { s in
            s.closed = true
            defer { s.pending = [:]; s.streams = [:] }
            return (Array(s.pending.values), Array(s.streams.values), s.refusal)
        }
        let error = refusal.map { RecorderClientError.rpc($0) } ?? .connectionClosed
        for p in pending { p.continuation.resume(throwing: error) }
        for s in streams { s.finish(error) }
    }

    func dispatch(_ message: JSONRPCMessage) {
        if message.method == ControlMethod.streamRecordsNotification {
            if let params = message.params, let batch = LiveBatch(params: params) { deliver(batch) }
            return
        }
        if message.method == ControlMethod.stepSummaryNotification {
            if let params = message.params, let summary = try? JSONValueDecoder().decode(StepSummaryParams.self, from: params) {
                state.withLock { s in
                    s.finalSummaries.append(summary)
                    if s.finalSummaries.count > Self.keptFinalSummaries { s.finalSummaries.removeFirst() }
                }
            }
            return
        }
        let pending: Pending?
        if let id = message.id?.integerValue {
            pending = state.withLock { $0.pending.removeValue(forKey: id) }
        } else if let error = message.error, message.id == nil || message.id == .null {
            pending = state.withLock { s in Self.unattributed(error, state: &s) }
        } else {
            pending = nil
        }
        guard let pending else { return }
        pending.onResponse?(message)
        pending.response.withLock { $0 = message }
        pending.continuation.resume()
    }

    /// An error the daemon could not tie to a request (JSON-RPC's null id). A line it could not
    /// parse is answered in turn, as every line of a connection is, so it answers the oldest call
    /// waiting (the client writes nothing but calls). Any other (a limit, a line too long or too
    /// slow) refuses the connection, which the daemon then closes: the calls still waiting fail
    /// with it.
    static func unattributed(_ error: RPCError, state s: inout State) -> Pending? {
        switch error.knownCode {
        case .parseError?, .invalidRequest?:
            guard let oldest = s.pending.keys.min() else { return nil }
            return s.pending.removeValue(forKey: oldest)
        default:
            s.refusal = s.refusal ?? error
            return nil
        }
    }

    /// The final summaries received for the steps of the run `taskRunUUID` whose `step.finish`
    /// answered with provisional ones (`step.summary` notifications), in the order received.
    /// Each arrives once its analysis settles, and before the response of the run's `task.finish`.
    public func finalSummaries(of taskRunUUID: UUID) -> [StepSummaryParams] {
        state.withLock { $0.finalSummaries.filter { $0.taskRunUUID == taskRunUUID } }
    }

    /// Hands a notification's records to their subscription's stream.
    func deliver(_ batch: LiveBatch) {
        let stream = state.withLock { $0.streams[batch.subscription] }
        stream?.yield(batch)
    }

    func register(subscription: Int, sink: LiveSink) {
        state.withLock { $0.streams[subscription] = sink }
    }

    func unregister(subscription: Int) {
        _ = state.withLock { $0.streams.removeValue(forKey: subscription) }
    }
}

/// The client's socket descriptor, closed exactly once. `shutdown` never touches a descriptor
/// number after `close` (it could belong to another connection by then).
final class ClientSocket: Sendable {
    struct State {
        var descriptor: Int32?
        /// Writes waiting on the write queue: while any is, new bytes queue behind them.
        var queued = 0
    }

    private let state: LockedValue<State>
    private let fd: Int32

    init(fd: Int32) {
        self.fd = fd
        state = LockedValue(State(descriptor: fd))
    }

    /// Ends both directions; the reader sees EOF.
    func shutdown() {
        state.withLock { s in
            if let d = s.descriptor { _ = Glibc.shutdown(d, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes the descriptor (once).
    func close() {
        state.withLock { s in
            if let d = s.descriptor { _ = Glibc.close(d) }
            s.descriptor = nil
        }
    }

    /// The descriptor, for the reader thread's `poll` (only it closes the descriptor).
    var readerDescriptor: Int32 { fd }

    /// Blocking receive on the reader thread; <= 0 at EOF or error.
    func receive(into chunk: inout [UInt8]) -> Int {
        // Only the reader thread receives and only it closes, so `fd` is valid here.
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }

    /// Sends `data` without blocking the caller: at once when nothing is queued and the socket
    /// takes it all, else (the rest) on `queue`, in order.
    func send(_ data: Data, queue: DispatchQueue) {
        let rest: Data? = state.withLock { s in
            guard let d = s.descriptor else { return nil }
            var rest = data
            if s.queued == 0 {
                let n = data.withUnsafeBytes { Glibc.send(d, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                if n == data.count { return nil }
                if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { return nil }
                rest = data.dropFirst(max(0, n))
            }
            s.queued += 1
            return rest
        }
        guard let rest else { return }
        queue.async { [self] in
            writeAll(rest)
            state.withLock { $0.queued -= 1 }
        }
    }

    /// Writes all of `data` (on the client's write queue only). Each send is non-blocking and
    /// made under the lock (the descriptor cannot be closed meanwhile); waiting for room is a
    /// `poll` outside it, so `send`, `shutdown` and `close` never wait for a slow reader.
    func writeAll(_ data: Data) {
        var offset = 0
        while offset < data.count {
            let outcome: Int? = state.withLock { s in
                guard let d = s.descriptor else { return nil }
                let n = data.withUnsafeBytes { raw in
                    Glibc.send(d, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if n < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : nil }
                return n
            }
            guard let n = outcome else { return }
            offset += n
            if n == 0 {
                var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pfd, 1, 100)
            }
        }
    }
}
