// recorderd's daemon behind a synchronous main thread, for valgrind (`BENCH_ONLY=iio-instructions`
// runs it under callgrind on the fake IIO device). recorderd's own `async` main parks the main
// thread in `dispatch_main`, and valgrind 3.19 stops with an internal error when a thread is
// created after that; here the main thread runs Foundation's run loop instead. SIGTERM stops it.
// Usage: DaemonCount CONFIG
import Dispatch
import Foundation
import Logging
import RecorderConfiguration
import RecorderDaemon
import RecorderModel
import RecorderTestSupport

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    print("usage: DaemonCount CONFIG")
    exit(2)
}
var logger = Logger(label: "daemon-count")
logger.logLevel = .error
let loaded: (DaemonConfiguration, baseDirectory: String)
do {
    loaded = try DaemonConfigurationLoader.load(path: arguments[1], required: true, socket: nil, dataDirectory: nil,
                                                deviceKinds: DaemonComponents.recorderd.deviceKinds)
} catch {
    print("configuration: \(error.message)")
    exit(78)
}
let daemon = RecorderDaemon(configuration: loaded.0, components: .recorderd, baseDirectory: loaded.baseDirectory, logger: logger)
Task {
    do {
        try await daemon.run()
        exit(0)
    } catch {
        print("recorderd stopped: \(error)")
        exit(1)
    }
}
// The main thread serves the main queue (the daemon's main-actor work) from Foundation's run loop.
while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
