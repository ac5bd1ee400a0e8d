import RecorderModel

/// An analysis with an async-action type of its own (`gait`): it joins the record pipeline of a
/// device's frames as one more `RecordProducer`, in recordings (its file, its step summaries) and
/// in live streams (its events, for subscribers asking for `streamedType`). Given to the
/// `DeviceRegistry` by the daemon; the engine knows only this seam.
public protocol AnalysisProvider: Sendable {
    /// The async-action type it serves.
    var actionType: AsyncActionType { get }
    /// The record type live subscribers ask for to receive its events.
    var streamedType: SensorType { get }
    /// The device's sensor types it reads, from what the device offers (fused types where the
    /// device has them); throws why the device cannot feed it (no accelerometer, too slow).
    func inputTypes(capabilities: DeviceCapabilities) throws(AnalysisRefusal) -> [SensorType]
    /// A producer for a recording of `configuration`, or for a live stream (nil). `capabilities`
    /// passed `inputTypes`.
    func makeProducer(configuration: AsyncActionConfiguration?, capabilities: DeviceCapabilities) -> any RecordProducer
}

/// Why a device cannot feed an analysis.
public struct AnalysisRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
