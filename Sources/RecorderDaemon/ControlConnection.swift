import Dispatch
import Logging
import NIOCore
import RecorderConfiguration
import RecorderEngine
import RecorderModel
import RecorderProtocol
import RecorderRuntime
import Synchronization

/// One client connection: answers its requests in order and feeds its live subscriptions.
/// A client that disconnects leaves its task runs running; its subscriptions end.
///
/// Its `ControlChannelHandler` frames the input and hands over one request at a time
/// (`deliver`); `serve` answers it and reports back through the pipeline, which lets the next
/// one through (see `ControlConnectionState` for the flow control).
final class ControlConnection: Sendable {
    let channel: any Channel
    let router: RequestRouter
    let logger: Logger
    /// Every hand-off to the event loop from another thread goes through it (see `EventLoopGate`).
    let gate: EventLoopGate
    let lines: AsyncStream<RequestLine>
    let linesContinuation: AsyncStream<RequestLine>.Continuation
    private let subscriptions = LockedValue<[Int: LiveStream]>([:])
    /// Streams subscribed by the request being answered: armed once its response is sent, so no
    /// notification precedes it (the client learns the subscription id from the response).
    private let unarmed = LockedValue<[(holder: StreamHolder, stream: LiveStream)]>([])
    private let nextSubscription = Atomic<Int>(1)
    /// The `stream.records` notification being written, reused from drain to drain (on the event
    /// loop only: `drain` runs there).
    private let notification: NIOLoopBoundBox<[UInt8]>
    private let isClosed = Atomic<Bool>(false)
    private let refused = Atomic<Bool>(false)

    /// A request line on its way to the request task: parsed on the event loop when short.
    enum RequestLine: Sendable {
        case unparsed(ByteBuffer)
        case parsed(Result<JSONRPCRequest, RequestParseError>)
    }

    /// Lines up to this length are parsed on the event loop (a `step.start` is ~150 bytes and
    /// ~6 µs, `BENCH_ONLY=parse`); longer ones (a task configuration can be large) by the request task.
    static let parsedOnEventLoop = 4096

    init(channel: any Channel, router: RequestRouter, gate: EventLoopGate, logger: Logger) {
        self.channel = channel
        self.router = router
        self.gate = gate
        self.logger = logger
        notification = NIOLoopBoundBox.makeBoxSendingValue([], eventLoop: channel.eventLoop)
        // Holds at most one line: the handler delivers the next only after `requestAnswered`.
        (lines, linesContinuation) = AsyncStream.makeStream(of: RequestLine.self, bufferingPolicy: .unbounded)
    }

    /// A request line to answer (from the handler, on the event loop). A step boundary of a
    /// known run is answered here when its run's queue is idle, or else by that queue, which also
    /// lets the next request through: the request task is not woken on the path a participant
    /// waits on. Everything else is answered by the request task (`serve`).
    func deliver(_ line: ByteBuffer) {
        channel.eventLoop.preconditionInEventLoop()
        guard line.readableBytes <= Self.parsedOnEventLoop else {
            linesContinuation.yield(.unparsed(line))
            return
        }
        let parsed = Result(catching: { () throws(RequestParseError) in try JSONRPCRequest.parse(line: line.readableBytesView) })
        if case .success(let request) = parsed, router.submitStep(request, connection: self, onEventLoop: true) { return }
        linesContinuation.yield(.parsed(parsed))
    }

    /// Answers requests one after another until the connection closes.
    func serve() async {
        for await line in lines {
            let parsed: Result<JSONRPCRequest, RequestParseError>
            switch line {
            case .parsed(let p):
                parsed = p
            case .unparsed(let bytes):
                parsed = Result(catching: { () throws(RequestParseError) in try JSONRPCRequest.parse(line: bytes.readableBytesView) })
                if case .success(let request) = parsed, router.submitStep(request, connection: self, onEventLoop: false) { continue }
            }
            let response: [UInt8]?
            switch parsed {
            case .success(let request): response = await router.respond(to: request, connection: self)
            case .failure(let error): response = JSONRPCEncoder.failure(id: error.id, error: error.error)
            }
            if let response { send(response) }
            armSubscriptions()
            requestAnswered()
        }
    }

    /// Lets the handler hand over the next request (after this reply's write: both go through
    /// the event loop in order). From the request task or a run's queue.
    func requestAnswered() {
        let channel = self.channel
        gate.execute(on: channel.eventLoop) { channel.pipeline.fireUserInboundEventTriggered(ControlChannelHandler.RequestAnswered()) }
    }

    /// Lets new subscriptions notify, and drains what their devices delivered meanwhile (a fast
    /// source may have delivered everything before the response went out).
    func armSubscriptions() {
        let pending = unarmed.withLock { u in defer { u = [] }; return u }
        for (holder, stream) in pending {
            holder.stream.withLock { $0 = stream }
            // Submitted after the response's write: the event loop sends it first.
            if stream.claimDrain() { gate.execute(on: channel.eventLoop) { self.drain(stream) } }
        }
    }

    /// Writes bytes to the client.
    func send(_ bytes: [UInt8]) {
        guard !isClosed.load(ordering: .acquiring) else { return }
        let channel = self.channel
        let buffer = channel.allocator.buffer(bytes: bytes)
        gate.execute(on: channel.eventLoop) { channel.writeAndFlush(buffer, promise: nil) }
    }

    /// Refuses a request line (too long, over the input budget, unfinished): sends the error,
    /// closes the output (the client reads the error and EOF), and closes fully when the client
    /// does or after 5 s. Further input is discarded by the handler.
    func refuse(_ error: RPCError) {
        guard !refused.exchange(true, ordering: .acquiringAndReleasing) else { return }
        logger.warning("control request refused", metadata: ["error": "\(error.message)"])
        let response = JSONRPCEncoder.failure(id: .null, error: error)
        let channel = self.channel
        channel.writeAndFlush(channel.allocator.buffer(bytes: response)).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
        }
    }

    func close() {
        let channel = self.channel
        gate.execute(on: channel.eventLoop) { channel.close(promise: nil) }
    }

    /// The channel closed: ends request handling and subscriptions.
    func closed() {
        isClosed.store(true, ordering: .releasing)
        linesContinuation.finish()
        let all = subscriptions.withLock { s -> [LiveStream] in defer { s = [:] }; return Array(s.values) }
        if !all.isEmpty {
            QueueHandOff.detach { for stream in all { stream.close() } }
        }
    }

    // MARK: Subscriptions

    func subscribe(device: Device, params: SubscribeParams, clock: any RecorderClock) async throws(RPCError) -> SubscribeResult {
        // One request at a time per connection: no other subscribe can slip in between.
        guard subscriptions.withLock({ $0.count }) < DaemonLimits.subscriptionsPerConnection else {
            throw RPCError(.limitReached, "too many subscriptions: a connection may hold \(DaemonLimits.subscriptionsPerConnection)")
        }
        let id = nextSubscription.wrappingAdd(1, ordering: .relaxed).oldValue
        let holder = StreamHolder()
        let eventLoop = channel.eventLoop
        let gate = self.gate
        // Starting a device may block briefly: never on the cooperative pool.
        let outcome: Result<LiveStream, DeviceError> = await QueueHandOff.blocking {
            do throws(DeviceError) {
                return .success(try LiveStream(subscription: id, device: device, types: params.sensorTypes, rate: params.rate,
                                                     analysisConfiguration: params.analysisConfiguration, clock: clock) { [weak self] in
                    guard let self, let stream = holder.stream.withLock({ $0 }), stream.claimDrain() else { return }
                    gate.execute(on: eventLoop) { self.drain(stream) }
                })
            } catch {
                return .failure(error)
            }
        }
        let stream: LiveStream
        switch outcome {
        case .success(let s): stream = s
        case .failure(let e): throw e.rpcError
        }
        let accepted = subscriptions.withLock { s -> Bool in
            guard !isClosed.load(ordering: .acquiring) else { return false }
            s[id] = stream
            return true
        }
        if accepted {
            unarmed.withLock { $0.append((holder, stream)) }
        } else {
            QueueHandOff.detach { stream.close() }
        }
        return SubscribeResult(subscription: id, device: device.name, deviceRate: device.capabilities?.rate ?? 0, rate: stream.deliveredRate)
    }

    func unsubscribe(_ id: Int) -> Bool {
        guard let stream = subscriptions.withLock({ $0.removeValue(forKey: id) }) else { return false }
        QueueHandOff.detach { stream.close() }
        return true
    }

    /// On the event loop: sends what the stream has while the client keeps up. When the socket
    /// is not writable the ring keeps going and this subscriber later gets a gap record.
    func drain(_ stream: LiveStream) {
        channel.eventLoop.preconditionInEventLoop()
        stream.beginDrain()
        guard subscriptions.withLock({ $0[stream.subscription] != nil }) else { return }
        var rounds = 0
        while channel.isWritable, rounds < 8 {
            let lines = stream.drain()
            if lines.isEmpty { return }
            notification.value.removeAll(keepingCapacity: true)
            StreamRecordsNotification.append(subscription: stream.subscription, lines: lines, to: &notification.value)
            channel.writeAndFlush(channel.allocator.buffer(bytes: notification.value), promise: nil)
            rounds += 1
        }
        if channel.isWritable && stream.hasBacklog && stream.claimDrain() {
            channel.eventLoop.execute { self.drain(stream) }
        }
    }

    /// The socket became writable again (on the event loop).
    func writable() {
        channel.eventLoop.preconditionInEventLoop()
        let all = subscriptions.withLock { Array($0.values) }
        for stream in all where stream.claimDrain() { drain(stream) }
    }
}

/// Lets the ring's notification find its stream once it is armed.
final class StreamHolder: Sendable {
    let stream = LockedValue<LiveStream?>(nil)
}
