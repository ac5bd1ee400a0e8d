// Entry point only: the benchmarks live in Benchmarks.swift.
await Benchmarks.main()
