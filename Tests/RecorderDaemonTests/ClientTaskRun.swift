import RecorderClient

/// The client's handle of a task run (`RecorderEngine` has a `TaskRun` of its own; this file
/// sees only the client's).
typealias ClientTaskRun = TaskRun
