extension TaskDefinition {
    /// Gives the participant's heights (m) to every `gait` action of the task: the pendulum's
    /// length of its stride length, walking speed and distance (`GaitOptions`). A nil height
    /// leaves the action's own.
    public mutating func setParticipant(bodyHeight: Double?, sensorHeight: Double?) {
        for i in asyncActions.indices {
            guard case .gait(var options) = asyncActions[i].options else { continue }
            if let bodyHeight { options.bodyHeight = bodyHeight }
            if let sensorHeight { options.sensorHeight = sensorHeight }
            asyncActions[i].options = .gait(options)
        }
    }
}
