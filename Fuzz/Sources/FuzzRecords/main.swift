import FuzzSupport

/// libFuzzer's entry point: one input is a line of a recording (or a live notification's record).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecords(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    RecordCheck.run(Array(UnsafeRawBufferPointer(start: start, count: count)))
    return 0
}
