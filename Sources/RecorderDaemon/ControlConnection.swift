import Dispatch
import Logging
import NIOCore
import RecorderEngine
import RecorderModel
import Synchronization

/// One client connection: answers its requests in order and feeds its live subscriptions.
/// A client that disconnects leaves its task runs running; its subscriptions end.
final class ControlConnection: Sendable {
    /// Lines longer than this are refused and the connection is closed.
    static let maximumLineLength = 1 << 20

    let channel: any Channel
    let router: RequestRouter
    let logger: Logger
    let lines: AsyncStream<ByteBuffer>
    let linesContinuation: AsyncStream<ByteBuffer>.Continuation
    private let subscriptions = Mutex<[Int: LiveStream]>([:])
    /// Streams subscribed by the request being answered: armed once its response is sent, so no
    /// notification precedes it (the client learns the subscription id from the response).
    private let unarmed = Mutex<[(holder: StreamHolder, stream: LiveStream)]>([])
    private let nextSubscription = Atomic<Int>(1)
    private let isClosed = Atomic<Bool>(false)
    private let refused = Atomic<Bool>(false)

    init(channel: any Channel, router: RequestRouter, logger: Logger) {
        self.channel = channel
        self.router = router
        self.logger = logger
        (lines, linesContinuation) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .unbounded)
    }

    /// Answers requests one after another until the connection closes.
    func serve() async {
        for await line in lines {
            let response: [UInt8]?
            if refused.load(ordering: .acquiring) { continue }
            if line.readableBytes > Self.maximumLineLength {
                refuseOversizedLine()
                continue
            }
            do {
                let request = try JSONRPCRequest.parse(line: line.readableBytesView)
                response = await router.respond(to: request, connection: self)
            } catch {
                response = ResponseEncoding.failure(id: error.id, error: error.error)
            }
            if let response { send(response) }
            armSubscriptions()
        }
    }

    /// Lets new subscriptions notify, and drains what their devices delivered meanwhile (a fast
    /// source may have delivered everything before the response went out).
    func armSubscriptions() {
        let pending = unarmed.withLock { u in defer { u = [] }; return u }
        for (holder, stream) in pending {
            holder.stream.withLock { $0 = stream }
            // Submitted after the response's write: the event loop sends it first.
            if stream.claimDrain() { channel.eventLoop.execute { self.drain(stream) } }
        }
    }

    /// Writes bytes to the client.
    func send(_ bytes: [UInt8]) {
        guard !isClosed.load(ordering: .acquiring) else { return }
        let buffer = channel.allocator.buffer(bytes: bytes)
        channel.writeAndFlush(buffer, promise: nil)
    }

    /// Refuses an over-long line: sends the error, closes the output (the client reads the error
    /// and EOF), ignores further input, and closes fully when the client does or after 5 s.
    func refuseOversizedLine() {
        guard !refused.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let response = ResponseEncoding.failure(id: .null, error: RPCError(.requestTooLarge, "request line longer than 1 MiB; closing the connection"))
        let channel = self.channel
        channel.writeAndFlush(channel.allocator.buffer(bytes: response)).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
        }
    }

    /// True once an over-long line was refused: later input is discarded.
    var isRefused: Bool { refused.load(ordering: .acquiring) }

    func close() {
        channel.close(promise: nil)
    }

    /// The channel closed: ends request handling and subscriptions.
    func closed() {
        isClosed.store(true, ordering: .releasing)
        linesContinuation.finish()
        let all = subscriptions.withLock { s -> [LiveStream] in defer { s = [:] }; return Array(s.values) }
        if !all.isEmpty {
            DispatchQueue.global().async { for stream in all { stream.close() } }
        }
    }

    // MARK: Subscriptions

    func subscribe(device: Device, params: SubscribeParams, clock: any RecorderClock) async throws(RPCError) -> SubscribeResult {
        let id = nextSubscription.wrappingAdd(1, ordering: .relaxed).oldValue
        let holder = StreamHolder()
        let eventLoop = channel.eventLoop
        let outcome: Result<LiveStream, DeviceError> = await withCheckedContinuation { continuation in
            // Starting a device may block briefly: never on the cooperative pool.
            DispatchQueue.global().async {
                do throws(DeviceError) {
                    let stream = try LiveStream(subscription: id, device: device, types: params.sensorTypes, rate: params.rate, clock: clock) { [weak self] in
                        guard let self, let stream = holder.stream.withLock({ $0 }), stream.claimDrain() else { return }
                        eventLoop.execute { self.drain(stream) }
                    }
                    continuation.resume(returning: .success(stream))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
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
            DispatchQueue.global().async { stream.close() }
        }
        return SubscribeResult(subscription: id, device: device.name, deviceRate: device.capabilities?.rate ?? 0, rate: stream.deliveredRate)
    }

    func unsubscribe(_ id: Int) -> Bool {
        guard let stream = subscriptions.withLock({ $0.removeValue(forKey: id) }) else { return false }
        DispatchQueue.global().async { stream.close() }
        return true
    }

    /// On the event loop: sends what the stream has while the client keeps up. When the socket
    /// is not writable the ring keeps going and this subscriber later gets a gap record.
    func drain(_ stream: LiveStream) {
        stream.beginDrain()
        guard subscriptions.withLock({ $0[stream.subscription] != nil }) else { return }
        var rounds = 0
        while channel.isWritable, rounds < 8 {
            let bytes = stream.drain()
            if bytes.isEmpty { return }
            channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
            rounds += 1
        }
        if channel.isWritable && stream.hasBacklog && stream.claimDrain() {
            channel.eventLoop.execute { self.drain(stream) }
        }
    }

    /// The socket became writable again.
    func writable() {
        let all = subscriptions.withLock { Array($0.values) }
        for stream in all where stream.claimDrain() { drain(stream) }
    }
}

/// Lets the ring's notification find its stream once it is armed.
final class StreamHolder: Sendable {
    let stream = Mutex<LiveStream?>(nil)
}
