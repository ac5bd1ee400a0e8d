import FuzzSupport

/// libFuzzer's entry point: one input is a daemon configuration, task file or params object.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    ConfigurationCheck.run(Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}
