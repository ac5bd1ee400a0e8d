import RecorderEngine
import RecorderModel
import RecorderProtocol

extension TaskRunError {
    /// The protocol error for this failure.
    var rpcError: RPCError {
        switch self {
        case .unknownTaskRun: return RPCError(.unknownTaskRun, description)
        case .duplicateTaskRun: return RPCError(.duplicateTaskRun, description)
        case .invalidConfiguration: return RPCError(.invalidConfiguration, description)
        case .stepOrder: return RPCError(.stepOrder, description)
        case .storage: return RPCError(.storageError, description)
        case .shuttingDown: return RPCError(.shuttingDown, description)
        case .limitReached: return RPCError(.limitReached, description)
        }
    }
}

extension DeviceError {
    /// The protocol error for this failure.
    var rpcError: RPCError {
        switch self {
        case .unknown: return RPCError(.unknownDevice, description)
        case .unavailable: return RPCError(.deviceUnavailable, description)
        case .noDevice: return RPCError(.unknownDevice, description)
        case .unsupportedSensor, .analysisRefused: return RPCError(.invalidParams, description)
        }
    }
}

extension RunCatalogError {
    /// The protocol error for this failure.
    var rpcError: RPCError {
        switch self {
        case .invalidParameter, .invalidRun, .ambiguousRun: return RPCError(.invalidParams, description)
        case .unknownRun: return RPCError(.unknownRun, description)
        case .runInUse: return RPCError(.runInUse, description)
        case .storage: return RPCError(.storageError, description)
        }
    }
}
