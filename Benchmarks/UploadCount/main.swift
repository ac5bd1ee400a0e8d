// Entry point only: see UploadCount.swift.
UploadCount.main()
