import FuzzSupport

/// libFuzzer's entry point: one input is one or more request lines to a real recorderd.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequests(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    FuzzDaemon.shared.exchange(Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}
