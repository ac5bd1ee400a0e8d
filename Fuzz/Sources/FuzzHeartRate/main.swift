import FuzzSupport

/// libFuzzer's entry point: one input is a Heart Rate Measurement notification's bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeartRate(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    HeartRateCheck.run(Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}
