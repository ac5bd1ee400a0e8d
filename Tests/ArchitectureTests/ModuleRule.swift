/// Where each module of the package stands: the dependency rule as data (docs/architecture.md).
///
/// - Arrows point down: a module depends only on modules of a lower rank (no cycles, no arrows
///   between peers such as two backends).
/// - Two sides above the shared bottom: the recording side (engine, backends, analyses, daemon)
///   and the client side (client, exports, plots, task files, web page, fleet link). No arrow
///   crosses from one side to the other.
/// - Backends and analyses are plug-ins: only an executable (a composition root) depends on one.
/// - A C library is reached through the one module it serves.
struct ModuleRule: Sendable {
    enum Side: Sendable { case bottom, recording, client }

    let side: Side
    let rank: Int
    /// A backend or an analysis: only executables may depend on it.
    var plugin = false
    /// A C library: only `owner` may depend on it.
    var owner: String?
    var isExecutable = false

    static func bottom(_ rank: Int) -> ModuleRule { ModuleRule(side: .bottom, rank: rank) }
    static func shim(owner: String) -> ModuleRule { ModuleRule(side: .bottom, rank: 0, owner: owner) }
    static func plugin(_ library: String? = nil) -> ModuleRule { ModuleRule(side: .recording, rank: 6, plugin: true) }
    static func executable(_ side: Side) -> ModuleRule { ModuleRule(side: side, rank: 10, isExecutable: true) }

    static let table: [String: ModuleRule] = [
        // C libraries, each with the module that wraps it
        "CRecorderRuntime": .shim(owner: "RecorderRuntime"), "CSystemd": .shim(owner: "RecorderSystemd"),
        "CLibIIO": .shim(owner: "IIOSensors"), "CLibGPS": .shim(owner: "GPSSensors"), "CALSA": .shim(owner: "AudioSensors"),
        "CZstd": .shim(owner: "RecorderCompression"), "CZlib": .shim(owner: "RecorderCompression"), "CCairo": .shim(owner: "RecorderPlot"), "CMosquitto": .shim(owner: "RecorderFleet"),
        "CEarlySignals": .shim(owner: "recorderd"),
        // the shared bottom
        "RecorderRuntime": .bottom(1), "RecorderSystemd": .bottom(2), "RecorderJSON": .bottom(2), "RecorderCompression": .bottom(2),
        "RecorderModel": .bottom(3), "RecorderConfiguration": .bottom(4),
        // the wire format: shared by both sides as the bottom is, but ranked above the engine and
        // the backends, which speak model and engine types (the daemon maps them to the wire)
        "RecorderProtocol": .bottom(7),
        // the recording side
        "RecorderEngine": ModuleRule(side: .recording, rank: 5),
        "ReplaySensors": .plugin(), "GPSSensors": .plugin(), "IIOSensors": .plugin(), "AudioSensors": .plugin(), "BLESensors": .plugin(), "TimeServices": .plugin(),
        "MotionFusion": .plugin(), "GaitAnalysis": .plugin(),
        "RecorderDaemon": ModuleRule(side: .recording, rank: 8),
        // the client side
        "RecorderFHIR": ModuleRule(side: .client, rank: 5), "RecorderExport": ModuleRule(side: .client, rank: 5),
        "RecorderPlot": ModuleRule(side: .client, rank: 6), "RecorderClient": ModuleRule(side: .client, rank: 8),
        "RecorderWeb": ModuleRule(side: .client, rank: 9), "RecorderFleet": ModuleRule(side: .client, rank: 9),
        // composition roots
        "recorderd": .executable(.recording), "recorderd-services": .executable(.client), "recorderctl": .executable(.client),
    ]

    /// Why the arrow `from → to` breaks the rule, or nil.
    static func problem(from: (name: String, rule: ModuleRule), to: (name: String, rule: ModuleRule)) -> String? {
        let arrow = "\(from.name) → \(to.name)"
        if let owner = to.rule.owner, owner != from.name { return "\(arrow): \(to.name) is reached through \(owner) only" }
        if to.rule.rank >= from.rule.rank { return "\(arrow): points up or sideways (rank \(from.rule.rank) → \(to.rule.rank))" }
        if from.rule.side != .bottom, to.rule.side != .bottom, from.rule.side != to.rule.side {
            return "\(arrow): crosses from the \(from.rule.side) side to the \(to.rule.side) side"
        }
        if from.rule.side == .bottom, to.rule.side != .bottom { return "\(arrow): the bottom depends on the \(to.rule.side) side" }
        if to.rule.plugin, !from.rule.isExecutable { return "\(arrow): \(to.name) is a plug-in; only an executable chooses it" }
        if to.rule.isExecutable { return "\(arrow): an executable is no library" }
        return nil
    }
}
