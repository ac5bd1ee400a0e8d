import FoundationEssentials
import Glibc
import RecorderConfiguration
import RecorderJSON
import RecorderModel
import RecorderRuntime
import Dispatch

/// The central side of run uploads (`recorderctl collect`): subscribes to every Pi's manifests
/// and chunks under a prefix, writes each run with a `CollectorStore`, and answers on the run's
/// `ack` topic. Several collectors can share the load through an MQTT shared subscription
/// (`$share/{group}/…`) when they share the folder — MQTT 5 only: on a broker of 3.1.1 a shared
/// collector stops at once and says so (one collector per site, `site`, is the way there).
public struct Collector: Sendable {
    /// One line of what happened (a run complete, a manifest refused).
    public enum Report: Sendable {
        /// Connected and subscribed, speaking this protocol (`.v5` or `.v311`).
        case connected(MQTTProtocolChoice)
        /// A run arrived whole; `wireBytes`: its chunks' payload bytes as they came (compressed
        /// or not).
        case complete(site: String, device: String, manifest: RunManifest, wireBytes: Int64)
        case refused(site: String, device: String, run: UUID, reason: String)
        /// A file whose bytes were all there failed its SHA-256: emptied and asked for again.
        case healed(site: String, device: String, run: UUID, file: String)
        case failed(String)
    }

    let options: MQTTClient.Options
    let prefix: String
    let shareGroup: String?
    /// Only this site's Pis (nil: every site).
    let site: String?
    let store: CollectorStore
    /// Disk work runs here, off the cooperative pool, one message at a time.
    let queue = DispatchQueue(label: "recorderd.collector.store")

    /// `plainChunks`: offer the Pis no chunk encoding (they send plain bytes, as to a collector
    /// that predates zstd).
    public init(options: MQTTClient.Options, prefix: String, shareGroup: String?, site: String? = nil, directory: String, plainChunks: Bool = false) {
        var options = options
        // Chunks arrive faster than a disk may take them for a moment: room for a burst.
        options.messageBuffer = 1024
        self.options = options
        self.prefix = prefix
        self.shareGroup = shareGroup
        self.site = site
        store = CollectorStore(root: directory, accepts: plainChunks ? [] : [UploadChunk.zstd])
    }

    /// The topics it subscribes to.
    public var patterns: [String] {
        let share = shareGroup.map { "$share/\($0)/" } ?? ""
        let site = self.site ?? "+"
        return ["\(share)\(prefix)/\(site)/+/runs/+/manifest", "\(share)\(prefix)/\(site)/+/runs/+/chunk"]
    }

    /// Why collectors cannot share one subscription over MQTT 3.1.1, and what to do instead.
    public static let shareNeedsMQTT5 = "--share needs MQTT 5 (a shared subscription); this broker speaks MQTT 3.1.1: "
        + "run one collector per site instead (--site), each with its own folder or all with one"

    /// The broker refused the collector before it ever connected (credentials, authorisation):
    /// what it answered.
    public struct Refused: Error, CustomStringConvertible {
        public let answer: String
        public var description: String { "the broker refused the connection: \(answer)" }
    }

    /// A shared collector on a broker of MQTT 3.1.1 (`Collector.shareNeedsMQTT5`).
    public struct ShareNeedsMQTT5: Error, CustomStringConvertible {
        public var description: String { Collector.shareNeedsMQTT5 }
    }

    /// Collects until cancelled; throws `ShareNeedsMQTT5` when a shared collector finds the broker
    /// speaks 3.1.1 only.
    public func run(report: @escaping @Sendable (Report) -> Void) async throws {
        let client = try MQTTClient(options: options)
        defer { client.stop() }
        client.start()
        let refusedShare = LockedValue(false)
        let refusedAtStart = LockedValue<String?>(nil)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var everConnected = false
                for await event in client.events {
                    switch event.event {
                    case .connected:
                        everConnected = true
                        if shareGroup != nil, client.protocolInUse == .v311 {
                            refusedShare.withLock { $0 = true }
                            client.stop()
                            return
                        }
                        do {
                            for p in patterns { try client.subscribe(p, qos: 1) }
                            report(.connected(client.protocolInUse))
                        } catch {
                            report(.failed("cannot subscribe: \(error)"))
                        }
                    case .refused(let why):
                        // Refused before it ever connected: a configuration to mend, said at once.
                        if !everConnected {
                            refusedAtStart.withLock { $0 = why }
                            client.stop()
                            return
                        }
                        report(.failed("the broker refused the connection: \(why)"))
                    case .protocolFallback(let why): report(.failed(why))
                    case .disconnected(let why): report(.failed("disconnected (\(why)); reconnecting"))
                    }
                }
            }
            group.addTask {
                for await message in client.messages {
                    await handle(message, client: client, report: report)
                }
            }
            group.addTask {
                // Ends the loops when the caller cancels.
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                client.stop()
            }
            // The first to end (the caller cancelled, or the client was stopped) ends the others.
            await group.next()
            group.cancelAll()
        }
        if refusedShare.withLock({ $0 }) { throw ShareNeedsMQTT5() }
        if let answer = refusedAtStart.withLock({ $0 }) { throw Refused(answer: answer) }
    }

    /// `{prefix}/{site}/{device}/runs/{uuid}/{manifest|chunk}`: the parts, or nil.
    func parse(_ topic: String) -> (site: String, device: String, run: UUID, kind: String)? {
        guard topic.hasPrefix(prefix + "/") else { return nil }
        let levels = topic.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard levels.count == 5, levels[2] == "runs", MQTTConfiguration.isTopicLevel(levels[0]), MQTTConfiguration.isTopicLevel(levels[1]),
              let run = UUID(uuidString: levels[3]) else { return nil }
        return (levels[0], levels[1], run, levels[4])
    }

    func handle(_ message: MQTTClient.Message, client: MQTTClient, report: @escaping @Sendable (Report) -> Void) async {
        guard let (site, device, run, kind) = parse(message.topic) else { return }
        let store = self.store
        let answer: CollectorStore.Answer? = await withCheckedContinuation { continuation in
            queue.async {
                do {
                    switch kind {
                    case "manifest":
                        guard let manifest = try? JSONValueDecoder().decode(RunManifest.self, from: message.payload), manifest.taskRunUUID == run else {
                            continuation.resume(returning: .init(ack: UploadAck(taskRunUUID: run, state: .refused, error: "not a run manifest")))
                            return
                        }
                        continuation.resume(returning: try store.receive(manifest: manifest, site: site, device: device))
                    case "chunk":
                        guard let chunk = UploadChunk.decode(message.payload) else {
                            continuation.resume(returning: nil)
                            return
                        }
                        continuation.resume(returning: try store.receive(chunk: chunk, run: run, site: site, device: device, wireBytes: message.payload.count))
                    default:
                        continuation.resume(returning: nil)
                    }
                } catch {
                    report(.failed("\(site)/\(device) run \(run): \(error)"))
                    continuation.resume(returning: nil)
                }
            }
        }
        guard let answer else { return }
        let ack = answer.ack
        if let manifest = answer.completed { report(.complete(site: site, device: device, manifest: manifest, wireBytes: answer.wireBytes ?? 0)) }
        for file in answer.healed { report(.healed(site: site, device: device, run: run, file: file)) }
        if ack.state == .refused { report(.refused(site: site, device: device, run: run, reason: ack.error ?? "")) }
        let topic = "\(prefix)/\(site)/\(device)/runs/\(run.uuidString)/ack"
        _ = try? client.publish(topic: topic, payload: FleetAgent.encode(ack), qos: 1)
    }
}
