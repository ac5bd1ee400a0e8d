// Entry point only: see FanInPis.swift.
await FanInPis.main()
