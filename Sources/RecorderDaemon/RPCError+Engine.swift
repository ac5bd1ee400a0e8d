import RecorderEngine
import RecorderModel
import RecorderProtocol

/// An engine failure the protocol answers with: its error code and its own description.
protocol RPCErrorConvertible: CustomStringConvertible {
    var rpcCode: RPCErrorCode { get }
}

extension RPCErrorConvertible {
    /// The protocol error for this failure.
    var rpcError: RPCError { RPCError(rpcCode, description) }
}

extension TaskRunError: RPCErrorConvertible {
    var rpcCode: RPCErrorCode {
        switch self {
        case .unknownTaskRun: .unknownTaskRun
        case .duplicateTaskRun: .duplicateTaskRun
        case .invalidConfiguration: .invalidConfiguration
        case .stepOrder: .stepOrder
        case .storage: .storageError
        case .shuttingDown: .shuttingDown
        case .limitReached: .limitReached
        }
    }
}

extension DeviceError: RPCErrorConvertible {
    var rpcCode: RPCErrorCode {
        switch self {
        case .unknown, .noDevice: .unknownDevice
        case .unavailable: .deviceUnavailable
        case .unsupportedSensor, .analysisRefused: .invalidParams
        }
    }
}

extension RunCatalogError: RPCErrorConvertible {
    var rpcCode: RPCErrorCode {
        switch self {
        case .invalidParameter, .invalidRun, .ambiguousRun: .invalidParams
        case .unknownRun: .unknownRun
        case .runInUse: .runInUse
        case .storage: .storageError
        }
    }
}
