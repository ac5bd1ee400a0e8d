import Dispatch
import FoundationEssentials
import Glibc
import Logging
import RecorderEngine
import RecorderJSON
import RecorderModel
import RecorderProtocol
import RecorderRuntime

/// Answers control requests: decodes typed params for each `ControlMethod`, calls the registries,
/// encodes the result. Holds no state of its own.
struct RequestRouter: Sendable {
    let runs: TaskRunRegistry
    let devices: DeviceRegistry
    let startUptime: Double
    let clock: any RecorderClock
    /// The services process's state (nil-valued when the configuration has no `http` or `mqtt`).
    let services: ServicesProcessStatus
    /// Where `daemon.status` reads the clock's latest synchronisation (nil: not asked).
    var clockSynchronisation: (any ClockSynchronisationSource)? = nil

    /// Handles one request; returns the response line, or nil for a notification.
    func respond(to request: JSONRPCRequest, connection: ControlConnection) async -> [UInt8]? {
        let id = request.id ?? .null
        do {
            let bytes = try await handle(request, id: request.id, connection: connection)
            return request.id == nil ? nil : bytes
        } catch let error as RPCError {
            return request.id == nil ? nil : JSONRPCEncoder.failure(id: id, error: error)
        } catch {
            return request.id == nil ? nil : JSONRPCEncoder.failure(id: id, error: RPCError(.internalError, "internal error: \(error)"))
        }
    }

    /// Handles a request; returns the response, or nil when it was already sent (step boundaries
    /// answer from the run's queue). `id` is nil for notifications.
    func handle(_ request: JSONRPCRequest, id requestID: JSONRPCID?, connection: ControlConnection) async throws -> [UInt8]? {
        let id = requestID ?? .null
        guard let method = ControlMethod(rawValue: request.method) else {
            throw RPCError(.methodNotFound, "method not found: \(request.method.debugDescription); methods: \(ControlMethod.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        switch method {
        case .daemonStatus:
            let params = try Self.params(DaemonStatusParams.self, request.params)
            let disk = params.disk == false ? nil : await SupervisorService.onBlockingQueue { [runs] in runs.catalog.diskUsage() }
            let status = DaemonStatus(
                version: RecorderVersion.string, uptimeSeconds: clock.uptime() - startUptime,
                pid: getpid(), dataDirectory: runs.dataDirectory, devices: devices.infos, taskRuns: runs.active(), disk: disk,
                recentlyEnded: runs.recentlyEnded(), services: services.current, clock: clockSynchronisation?.recent())
            return try JSONRPCEncoder.response(id: id, result: status)
        case .runsList:
            let params = try Self.params(RunsListParams.self, request.params)
            let result = await SupervisorService.onBlockingQueue { [runs] in Result { () throws(RunCatalogError) in try runs.catalog.list(RunQuery(params)) } }
            return try JSONRPCEncoder.response(id: id, result: RunsListResult(try result.mapError(\.rpcError).get()))
        case .runsGet:
            let params = try Self.params(RunParams.self, request.params)
            let result = await SupervisorService.onBlockingQueue { [runs] in Result { () throws(RunCatalogError) in try runs.catalog.details(params.run) } }
            return try JSONRPCEncoder.response(id: id, result: RunDetails(try result.mapError(\.rpcError).get()))
        case .runsDelete:
            let params = try Self.params(RunParams.self, request.params)
            let result = await SupervisorService.onBlockingQueue { [runs] in Result { () throws(RunCatalogError) in try runs.deleteRun(params.run) } }
            return try JSONRPCEncoder.response(id: id, result: RunDeleted(try result.mapError(\.rpcError).get()))
        case .devicesScan:
            let params = try Self.params(DeviceScanParams.self, request.params)
            let result = await SupervisorService.onBlockingQueue { [devices] in
                devices.scan(kind: params.kind, seconds: params.seconds ?? 10, adapter: params.adapter)
            }
            switch result {
            case .success(let found): return try JSONRPCEncoder.response(id: id, result: DeviceScanResult(devices: found))
            case .failure(let failure) where failure.unsupported: throw RPCError(.invalidParams, "invalid params: params.kind: \(failure.description)")
            case .failure(let failure): throw RPCError(.deviceUnavailable, failure.description)
            }
        case .devicesList:
            let hardware = await SupervisorService.onBlockingQueue { [devices] in devices.discoverHardware() }
            return try JSONRPCEncoder.response(id: id, result: DevicesListResult(devices: devices.infos, hardware: hardware))
        case .taskStart:
            let params = try Self.params(TaskStartParams.self, request.params)
            let started = try await mapped { () async throws(TaskRunError) in
                try await runs.start(taskIdentifier: params.taskIdentifier, taskRunUUID: params.taskRunUUID, asyncActions: params.asyncActions,
                                     questionnaire: params.questionnaire)
            }
            return try JSONRPCEncoder.response(id: id, result: TaskStartResult(started))
        case .stepStart, .stepFinish:
            let params = try Self.params(StepParams.self, request.params)
            if method == .stepStart, params.results != nil {
                throw RPCError(.invalidParams, "invalid params: params.results: answers are sent with step.finish, not step.start")
            }
            // Valid boundaries of known runs were submitted (`submitStep`); here the rest: their
            // errors, and a run that ended meanwhile.
            let result = StepResult(try await mapped { () async throws(TaskRunError) in
                method == .stepStart ? try await runs.startStep(params.taskRunUUID, path: params.stepPath)
                    : try await runs.finishStep(params.taskRunUUID, path: params.stepPath, results: params.results)
            })
            let bytes = try JSONRPCEncoder.response(id: id, result: result)
            if method == .stepFinish {
                // After the response (a request's, not a notification's): the final summaries
                // follow it.
                if requestID != nil { connection.send(bytes) }
                notifyFinalSummaries(of: params, result, connection: connection)
                return nil
            }
            return bytes
        case .taskFinish:
            let params = try Self.params(TaskRunParams.self, request.params)
            return try JSONRPCEncoder.response(id: id, result: try await mapped { () async throws(TaskRunError) in try await runs.finish(params.taskRunUUID) })
        case .taskCancel:
            let params = try Self.params(TaskCancelParams.self, request.params)
            return try JSONRPCEncoder.response(id: id, result: try await mapped { () async throws(TaskRunError) in
                try await runs.cancel(params.taskRunUUID, keepFiles: params.keepFiles ?? false)
            })
        case .streamSubscribe:
            let params = try Self.params(SubscribeParams.self, request.params)
            let device: Device
            do { device = try devices.device(named: params.device) } catch { throw error.rpcError }
            let result = try await connection.subscribe(device: device, params: params, clock: clock)
            return try JSONRPCEncoder.response(id: id, result: result)
        case .streamUnsubscribe:
            let params = try Self.params(UnsubscribeParams.self, request.params)
            guard connection.unsubscribe(params.subscription) else {
                throw RPCError(.unknownSubscription, "no subscription \(params.subscription) on this connection")
            }
            return try JSONRPCEncoder.response(id: id, result: JSONValue.object(["subscription": .number(Double(params.subscription))]))
        }
    }

    /// Answers a valid `step.start` or `step.finish` of a known run without the request task:
    /// on the event loop itself when `onEventLoop` and the run's queue is idle, otherwise from
    /// the run's queue. Either way it sends the response and lets the connection's next request
    /// through. False (nothing done) for any other request, invalid params or an unknown run:
    /// `respond` answers those.
    func submitStep(_ request: JSONRPCRequest, connection: ControlConnection, onEventLoop: Bool) -> Bool {
        guard let method = ControlMethod(rawValue: request.method), method == .stepStart || method == .stepFinish,
              let params = try? Self.params(StepParams.self, request.params),
              method == .stepFinish || params.results == nil else { return false }
        let id = request.id
        return runs.submitStep(params.taskRunUUID, path: params.stepPath, results: params.results, finishing: method == .stepFinish,
                               onCallerThread: onEventLoop) { outcome in
            let result = outcome.map(StepResult.init)
            if let id {
                let bytes: [UInt8]
                switch result {
                case .success(let r):
                    bytes = (try? JSONRPCEncoder.response(id: id, result: r))
                        ?? JSONRPCEncoder.failure(id: id, error: RPCError(.internalError, "internal error: result not encodable"))
                case .failure(let e):
                    bytes = JSONRPCEncoder.failure(id: id, error: e.rpcError)
                }
                connection.send(bytes)
            }
            if method == .stepFinish, case .success(let r) = result { notifyFinalSummaries(of: params, r, connection: connection) }
            connection.requestAnswered()
        }
    }

    /// A `step.finish` answered with provisional summaries: each final one follows as a
    /// `step.summary` notification on the same connection (after the response).
    func notifyFinalSummaries(of params: StepParams, _ result: StepResult, connection: ControlConnection) {
        let provisional = (result.summaries ?? []).filter { $0.provisional == true }.map(\.identifier)
        guard !provisional.isEmpty else { return }
        let uuid = params.taskRunUUID, path = params.stepPath
        runs.whenSummariesFinal(uuid, stepPath: path, identifiers: provisional) { summary in
            let notification = StepSummaryParams(taskRunUUID: uuid, stepPath: path, summary: summary)
            if let bytes = try? JSONRPCEncoder.notification(method: ControlMethod.stepSummaryNotification, params: notification) {
                connection.send(bytes)
            }
        }
    }

    func mapped<T>(_ body: () async throws(TaskRunError) -> T) async throws(RPCError) -> T {
        do {
            return try await body()
        } catch {
            throw error.rpcError
        }
    }

    /// Decodes `params` as `T`; errors name the JSON path under `params`.
    static func params<T: Decodable>(_ type: T.Type, _ params: JSONValue?) throws(RPCError) -> T {
        let value: JSONValue
        switch params {
        case nil, .array?: value = .object([:])
        case let p?: value = p
        }
        do {
            return try value.decode(T.self)
        } catch {
            throw RPCError(.invalidParams, "invalid params: " + DecodingErrorDescription.describe(error, prefix: "params"))
        }
    }
}
