import FoundationEssentials
import Glibc
import HummingbirdWebSocket
import Logging
import RecorderClient
import RecorderJSON
import RecorderModel

/// One task walked from a browser: `/ws/sessions/<id>` runs the definition a POST kept, with
/// `TaskDefinitionRunner` (the boundaries `recorderctl run` sends) over a control connection of
/// its own. The participant's Cancel cancels the run with its files kept; a tab closed mid-task
/// closes the connection first, leaving the run to the daemon's orphan rules (the Tasks page
/// offers to cancel it).
struct TaskSession: Sendable {
    let site: WebSite
    let definition: TaskDefinition

    /// How the browser's side ended.
    enum Ending: Sendable {
        case runnerDone
        case cancelPressed
        case socketClosed
    }

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        guard let client = await site.connect(for: outbound) else { return }
        defer { client.close() }
        let inbox = BrowserInbox()
        let presenter = WebPresenter(outbound: outbound, inbox: inbox)
        let runner = TaskDefinitionRunner(client: client, definition: definition, automatic: false)
        let logger = site.logger
        await withTaskGroup(of: Ending.self) { group in
            group.addTask {
                do {
                    let (directory, result) = try await runner.run(presenter: presenter)
                    logger.info("web page: task run finished", metadata: ["task": "\(result.taskIdentifier)", "run": "\(result.taskRunUUID)"])
                    await presenter.send(["type": .string("done"), "taskRunUUID": .string(result.taskRunUUID.uuidString.lowercased()),
                                          "status": .string(result.status.rawValue), "runDirectory": .string(directory)])
                } catch is CancellationError {
                    await presenter.send(["type": .string("cancelled"), "message": .string("The task was cancelled; the files recorded so far are kept.")])
                } catch {
                    await presenter.send(["type": .string("error"), "message": .string("\(error)")])
                }
                return .runnerDone
            }
            group.addTask {
                do {
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        guard case .text(let text) = message, let value = try? JSONParser.parse(Data(text.utf8)) else { continue }
                        switch value["type"]?.stringValue {
                        case "next": await inbox.put(.next)
                        case "answer": await inbox.put(.answer(value["text"]?.stringValue))
                        case "cancel": return .cancelPressed
                        default: continue
                        }
                    }
                } catch {}
                return .socketClosed
            }
            let first = await group.next() ?? .socketClosed
            if first == .socketClosed {
                // The browser went: no cancel can reach the daemon once its connection is closed.
                logger.notice("web page: task screen closed mid-task; the run is left to the orphan rules", metadata: ["task": "\(definition.identifier)"])
                client.close()
            }
            // The runner stops at its next wait (Cancel: the run cancelled, files kept), or has stopped.
            group.cancelAll()
            await inbox.close()
            if first == .cancelPressed { _ = await group.next() }  // its "cancelled" goes out first
            if first != .socketClosed { try? await outbound.close(.normalClosure, reason: nil) }
        }
    }
}
