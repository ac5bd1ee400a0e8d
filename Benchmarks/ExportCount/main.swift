// Entry point only: see ExportCount.swift.
ExportCount.main()
