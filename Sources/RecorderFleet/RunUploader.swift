import FoundationEssentials
import Glibc
import Logging
import RecorderClient
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// Uploads every ended run to the collectors, one run at a time, losslessly: the manifest (each
/// file's size and SHA-256), then the bytes the collector does not hold yet in QoS 1 chunks
/// (offset and the file's SHA-256 in each), until the collector acknowledges the whole run; only
/// then is the run marked uploaded in the outbox. A broker away, a collector restarted, recorderd
/// killed: the next attempt announces the run again and the collector says what it holds, so
/// nothing acknowledged is sent again and nothing is lost.
struct RunUploader: Sendable {
    let client: MQTTClient
    let control: ControlLink
    let outbox: RunOutbox
    let topics: FleetTopics
    let acks: AckInbox
    let isConnected: @Sendable () -> Bool
    let logger: Logger
    /// Bytes per chunk, chunks unacknowledged by the broker at once, and a bandwidth cap (bytes/s).
    var chunkBytes = 256 * 1024
    var window = 8
    /// The zstd level of chunks to a collector that accepts them (nil: always plain). Chosen by
    /// measurement (BENCHMARKS.md, "compressed uploads").
    var zstdLevel: Int32? = 1
    var bytesPerSecond: Double?
    /// Seconds to wait for the collector's answer before announcing the run again.
    var ackTimeout: Double = 15
    /// Seconds between looks for ended runs when nothing wakes the uploader.
    var discoverInterval: Double = 60
    /// Attempts at one run before the next is tried (it is tried again in the next round): a run
    /// that cannot be read or is never answered does not hold up the others.
    var attemptsPerRound = 5
    /// `deleteAfterUpload` and `keepFreeBytes`.
    var deleteAfterUpload = false
    var keepFreeBytes: Int64?

    /// Runs until cancelled: finds ended runs, uploads the pending ones, waits for a wake-up.
    func run(wake: WakeSignal, pendingChanged: @escaping @Sendable (Int) -> Void) async {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            let listed = await discover()
            let outbox = outbox
            var pending = await QueueHandOff.blocking { outbox.entries() }.filter { $0.state == .pending }.sorted { $0.queued < $1.queued }
            pendingChanged(pending.count)
            while let next = pending.first, !Task.isCancelled {
                await upload(next)
                pending.removeFirst()
                // Runs that end meanwhile are queued at the next round (a run ending wakes it).
                pendingChanged(pending.count)
                if deleteAfterUpload { await deleteUploaded() }
            }
            // A run ending wakes the uploader; otherwise it looks again now and then — in a second
            // when the runs could not be listed (recorderd starting, its socket not listening yet:
            // 50 Pis started at once lost a minute to waiting the whole interval). What the outbox
            // already held was uploaded meanwhile (a recorderd killed and started again resumes at once).
            _ = await wake.wait(timeout: listed ? discoverInterval : 1)
        }
    }

    /// Queues every ended run the outbox does not know (all pages of `runs.list`); false when the
    /// runs could not be listed.
    func discover() async -> Bool {
        var offset = 0
        while true {
            let page: RunsListResult
            let params = RunsListParams(limit: RunsListParams.largestLimit, offset: offset)
            do {
                page = try await control.with { c throws(RecorderClientError) in try await c.runs(params) }
            } catch {
                logger.debug("fleet upload cannot list the runs", metadata: ["error": "\(error)"])
                return false
            }
            let ended = page.runs.filter { $0.status != .recording }
            let outbox = outbox
            // Reading and writing the outbox (fsync) off the cooperative pool.
            let queued = await QueueHandOff.blocking { () -> [(RunOutbox.Entry, String?)] in
                ended.filter { outbox.entry($0.taskRunUUID) == nil }.map { run in
                    let entry = RunOutbox.Entry(taskRunUUID: run.taskRunUUID, taskIdentifier: run.taskIdentifier, runDirectory: run.runDirectory,
                                                state: .pending, queued: Date())
                    do {
                        try outbox.save(entry)
                        return (entry, nil)
                    } catch {
                        return (entry, "\(error)")
                    }
                }
            }
            for (entry, error) in queued {
                if let error {
                    logger.error("fleet upload cannot queue a run", metadata: ["taskRun": "\(entry.taskRunUUID)", "error": "\(error)"])
                } else {
                    logger.info("fleet upload queued", metadata: ["taskRun": "\(entry.taskRunUUID)", "task": "\(entry.taskIdentifier)"])
                }
            }
            offset += page.runs.count
            if page.runs.count < RunsListParams.largestLimit { return true }
        }
    }

    /// Uploads one run until a collector acknowledges or refuses it (or recorderd stops).
    func upload(_ entry: RunOutbox.Entry) async {
        let run = entry.taskRunUUID
        let base = topics.run(run)
        var attempt = 0
        // Chunk bytes published for this run in this round, over every attempt (the journal's
        // account of what a resumed upload cost beside the files' size).
        var chunkBytesSent: Int64 = 0
        var wireBytesSent: Int64 = 0
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            // Not connected: look again shortly (not an attempt; libmosquitto reconnects).
            guard isConnected() else {
                try? await Task.sleep(for: .milliseconds(200))
                continue
            }
            attempt += 1
            if attempt > attemptsPerRound {
                logger.warning("fleet upload: no progress after \(attemptsPerRound) attempts; the run is tried again later", metadata: ["taskRun": "\(run)"])
                return
            }
            if attempt > 1 { try? await Task.sleep(for: .seconds(min(30, Double(attempt)))) }
            // The run's files read and hashed off the cooperative pool (a 1-hour run is 100+ MB).
            let outbox = outbox
            let read = await QueueHandOff.blocking { () -> Result<RunManifest, CollectorStore.StoreError>? in
                guard FileManager.default.fileExists(atPath: entry.runDirectory + "/taskResult.json") else {
                    outbox.remove(run)
                    return nil
                }
                return Result { () throws(CollectorStore.StoreError) -> RunManifest in
                    let status = try? JSONValueDecoder().decode(TaskResult.self, from: Data(contentsOf: URL(fileURLWithPath: entry.runDirectory + "/taskResult.json"))).status
                    do {
                        return try RunOutbox.manifest(runDirectory: entry.runDirectory, taskRunUUID: run, taskIdentifier: entry.taskIdentifier, status: status)
                    } catch let error as CollectorStore.StoreError {
                        throw error
                    } catch {
                        throw .io("\(error)")
                    }
                }
            }
            let manifest: RunManifest
            switch read {
            case nil:
                logger.warning("fleet upload: the run is gone; dropped from the queue", metadata: ["taskRun": "\(run)"])
                return
            case .failure(let error):
                logger.error("fleet upload cannot read the run", metadata: ["taskRun": "\(run)", "error": "\(error)"])
                continue
            case .success(let read):
                manifest = read
            }
            acks.clear(run)
            guard (try? client.publish(topic: base + "/manifest", payload: FleetAgent.encode(manifest), qos: 1)) != nil else { continue }
            var answer = await acks.next(run, timeout: ackTimeout)
            while let ack = answer {
                switch ack.state {
                case .complete:
                    var done = entry
                    done.state = .acknowledged
                    done.acknowledged = Date()
                    let saved = await QueueHandOff.blocking { [done] in Result { try outbox.save(done) } }
                    do {
                        try saved.get()
                    } catch {
                        logger.error("fleet upload cannot mark a run uploaded (it will be announced again)", metadata: ["taskRun": "\(run)", "error": "\(error)"])
                        return
                    }
                    let bytes = manifest.files.reduce(Int64(0)) { $0 + $1.size }
                    logger.notice("fleet upload: run acknowledged", metadata: ["taskRun": "\(run)", "files": "\(manifest.files.count)", "bytes": "\(bytes)",
                                                                               "chunkBytesSent": "\(chunkBytesSent)", "wireBytes": "\(wireBytesSent)"])
                    return
                case .refused:
                    var refused = entry
                    refused.state = .refused
                    refused.error = ack.error
                    _ = await QueueHandOff.blocking { [refused] in Result { try outbox.save(refused) } }
                    logger.error("fleet upload: the collector refused the run", metadata: ["taskRun": "\(run)", "error": "\(ack.error ?? "")"])
                    return
                case .unknown:
                    answer = nil
                case .need:
                    let held = (ack.have ?? [:]).values.reduce(Int64(0), +)
                    let total = manifest.files.reduce(Int64(0)) { $0 + $1.size }
                    logger.info("fleet upload: sending", metadata: ["taskRun": "\(run)", "bytes": "\(total - min(total, held))", "collectorHas": "\(held)"])
                    let level = (ack.accepts ?? []).contains(UploadChunk.zstd) ? zstdLevel : nil
                    let sent = await send(manifest, runDirectory: entry.runDirectory, have: ack.have ?? [:], to: base + "/chunk", zstdLevel: level)
                    chunkBytesSent += sent.bytes
                    wireBytesSent += sent.wireBytes
                    answer = sent.complete ? await acks.next(run, timeout: ackTimeout) : nil
                }
            }
        }
    }

    /// Deletes acknowledged runs still on the Pi (through `runs.delete`): all, or with
    /// `keepFreeBytes` the oldest only while free space is below it.
    func deleteUploaded() async {
        let outbox = outbox
        let uploaded = await QueueHandOff.blocking {
            outbox.entries().filter { $0.state == .acknowledged && FileManager.default.fileExists(atPath: $0.runDirectory) }
        }.sorted { $0.queued < $1.queued }
        for entry in uploaded {
            if let keepFreeBytes {
                guard let free = try? await control.with({ c throws(RecorderClientError) in try await c.status(disk: true).disk?.freeBytes }),
                      free < keepFreeBytes else { return }
            }
            do {
                let deleted = try await control.with { c throws(RecorderClientError) in try await c.deleteRun(entry.taskRunUUID.uuidString) }
                logger.notice("fleet upload: uploaded run deleted from the Pi", metadata: ["taskRun": "\(entry.taskRunUUID)", "freedBytes": "\(deleted.freedBytes)"])
            } catch {
                logger.warning("fleet upload cannot delete an uploaded run", metadata: ["taskRun": "\(entry.taskRunUUID)", "error": "\(error)"])
            }
        }
    }

    /// Sends what the collector lacks (with `zstdLevel`, each chunk compressed): whether all of it
    /// reached the broker (not when the connection dropped), the file bytes published and the
    /// payload bytes they took.
    func send(_ manifest: RunManifest, runDirectory: String, have: [String: Int64], to topic: String,
              zstdLevel: Int32? = nil) async -> (complete: Bool, bytes: Int64, wireBytes: Int64) {
        var inFlight: [Int32] = []
        let started = ContinuousClock.now
        // The connection the chunks go on: one that ends takes their acknowledgements with it.
        let connection = client.connectionsAccepted
        var sentBytes: Int64 = 0
        var wireBytes: Int64 = 0
        for file in manifest.files {
            // An empty file is made by the collector from the manifest.
            var offset = max(0, min(file.size, have[file.path] ?? 0))
            if offset >= file.size { continue }
            let path = runDirectory + "/" + file.path
            let fd = await QueueHandOff.blocking { open(path, O_RDONLY | O_CLOEXEC) }
            guard fd >= 0 else { return (false, sentBytes, wireBytes) }
            defer { close(fd) }
            repeat {
                let length = Int(min(Int64(chunkBytes), file.size - offset))
                // Read and compressed off the cooperative pool; a file shorter than the manifest
                // said (changed since) fails the attempt, and the next reads it again.
                let header = UploadChunk.Header(file: file.path, offset: offset, size: file.size, sha256: file.sha256)
                let at = offset
                guard let payload = await QueueHandOff.blocking({
                    Self.read(fd, length, at: at).flatMap { UploadChunk(header: header, bytes: $0).encoded(zstdLevel: zstdLevel) }
                }) else { return (false, sentBytes, wireBytes) }
                guard let mid = try? client.publish(topic: topic, payload: payload, qos: 1) else { return (false, sentBytes, wireBytes) }
                wireBytes += Int64(payload.count)
                inFlight.append(mid)
                sentBytes += Int64(length)
                if inFlight.count >= window {
                    guard await brokerHas(inFlight.removeFirst(), on: connection) else { return (false, sentBytes, wireBytes) }
                }
                offset += Int64(length)
                if let bytesPerSecond, bytesPerSecond > 0 {
                    let due = Double(sentBytes) / bytesPerSecond
                    let elapsed = Double((ContinuousClock.now - started) / .milliseconds(1)) / 1000
                    if due > elapsed { try? await Task.sleep(for: .seconds(due - elapsed)) }
                }
            } while offset < file.size
        }
        for mid in inFlight {
            guard await brokerHas(mid, on: connection) else { return (false, sentBytes, wireBytes) }
        }
        return (true, sentBytes, wireBytes)
    }

    /// Waits for the broker's acknowledgement of chunk `mid` while the link is up: on an uplink of
    /// a few kB/s a 256 KiB chunk behind seven others takes minutes, which is slow, not failed; a
    /// link that drops is (libmosquitto's keepalive finds a dead one and reconnects) — also when
    /// it was made again meanwhile (`connection`, the count of accepted connections when the chunk
    /// was sent: a new session, perhaps on another node of a cluster, never acknowledges it).
    func brokerHas(_ mid: Int32, on connection: Int) async -> Bool {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            if await client.waitPublished(mid, timeout: ackTimeout) { return true }
            guard isConnected(), client.connectionsAccepted == connection else { return false }
        }
        return false
    }

    /// `length` bytes of `fd` at `offset` (pread), or nil when fewer are there.
    static func read(_ fd: Int32, _ length: Int, at offset: Int64) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, length - done, off_t(offset) + off_t(done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return nil }
            done += n
        }
        return bytes
    }
}
