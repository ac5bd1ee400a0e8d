// The floor under issue 17's RSS target for a daemon built the way recorderd is built, without
// recorderd's own code (scripts/memory-floor.sh measures it): the Swift runtime with
// FoundationEssentials, swift-nio's event loop serving a Unix socket, a ServiceGroup, swift-log,
// ArgumentParser and Dispatch; the three backends' C libraries each used once (libiio's local
// context, libgps opening a connection, libasound capturing from its "null" plugin); and the one
// ring the memory configuration cannot make smaller: 30 s of 48 kHz mono S16 audio, written.
// Usage: DaemonFloor [--socket PATH]
import ArgumentParser
import CALSA
import CLibGPS
import CLibIIO
import Dispatch
import FoundationEssentials
import Glibc
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

@main
struct DaemonFloor: AsyncParsableCommand {
    @Option(help: "The Unix socket to serve.")
    var socket = "/tmp/daemon-floor.sock"

    func run() async throws {
        let context = iio_create_local_context()
        print("iio devices: \(context.map { iio_context_get_devices_count($0) } ?? 0)")
        var gps = gps_data_t()
        print("gps_open: \(gps_open("127.0.0.1", "2947", &gps))")
        var pcm: OpaquePointer?
        if snd_pcm_open(&pcm, "null", SND_PCM_STREAM_CAPTURE, 0) == 0,
           snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, 48000, 1, 100_000) == 0 {
            var frames = [Int16](repeating: 0, count: 4800)
            print("captured: \(snd_pcm_readi(pcm, &frames, 4800))")
        }
        // 30 s of audio, every page written (a ring that has wrapped once).
        var ring = [Int16](repeating: 0, count: 30 * 48000)
        for i in stride(from: 0, to: ring.count, by: 2048) { ring[i] = Int16(truncatingIfNeeded: i) }
        // A JSON value through FoundationEssentials, and a serial queue, as the daemon uses them.
        let decoded = try JSONDecoder().decode([String: Int].self, from: Data(#"{"rate":48000}"#.utf8))
        DispatchQueue(label: "floor").sync { print("decoded: \(decoded)") }

        unlink(socket)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in channel.pipeline.addHandler(Echo()) }
            .bind(unixDomainSocketPath: socket).get()
        var logger = Logger(label: "floor")
        logger.logLevel = .error
        let serviceGroup = ServiceGroup(configuration: .init(services: [.init(service: Idle())],
                                                             gracefulShutdownSignals: [.sigterm], logger: logger))
        print("ready (ring \(ring.count) samples)")
        try await serviceGroup.run()
        try await server.close()
        try await group.shutdownGracefully()
    }
}

/// Echoes what it reads.
final class Echo: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(data, promise: nil)
    }
}

/// Waits for the graceful shutdown.
struct Idle: Service {
    func run() async throws {
        try? await gracefulShutdown()
    }
}
