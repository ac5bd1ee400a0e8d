import RecorderRuntime

extension SysexitStatus {
    /// The status for a daemon error reply (`RPCError.code`).
    public static func forRPCError(code: Int) -> SysexitStatus {
        switch code {
        case -32003, -32004, -32010, -32011, -32013: return .unavailable
        case -32008: return .ioError
        case -32603, -32700, -32600, -32601: return .software
        default: return .dataError
        }
    }
}
