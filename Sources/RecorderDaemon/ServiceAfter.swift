import RecorderRuntime
import ServiceLifecycle

/// A service of the daemon's group that begins once an event has happened: the control server
/// after the services process's page has said whether it listens (`ServicesProcess.pageSettled`,
/// which is signalled within its time limit whatever happens, and when the group stops). The
/// service then runs even when the group is already stopping: it ends at once, and what waits on
/// it (READY=1 on the socket's listening) is not left waiting.
struct ServiceAfter: Service {
    let event: OneShotEvent
    let service: any Service

    init(_ event: OneShotEvent, _ service: any Service) {
        self.event = event
        self.service = service
    }

    func run() async throws {
        await event.wait()
        try await service.run()
    }
}
