/// The control protocol's methods. Requests are dispatched on this enum, never on strings.
public enum ControlMethod: String, Sendable, CaseIterable {
    case daemonStatus = "daemon.status"
    case devicesList = "devices.list"
    /// Looks for devices of a kind nearby (a Bluetooth LE scan).
    case devicesScan = "devices.scan"
    case taskStart = "task.start"
    case stepStart = "step.start"
    case stepFinish = "step.finish"
    case taskFinish = "task.finish"
    case taskCancel = "task.cancel"
    case streamSubscribe = "stream.subscribe"
    case streamUnsubscribe = "stream.unsubscribe"
    case runsList = "runs.list"
    case runsGet = "runs.get"
    case runsDelete = "runs.delete"

    /// The notification method carrying live records.
    public static let streamRecordsNotification = "stream.records"
    /// The notification carrying an analysis's final summary of a step whose `step.finish`
    /// answered with a provisional one (`StepSummaryParams`), sent to that connection.
    public static let stepSummaryNotification = "step.summary"
}
