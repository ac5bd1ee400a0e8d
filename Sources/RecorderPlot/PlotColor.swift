/// An RGB colour, components 0…1.
struct PlotColor: Equatable {
    var red: Double
    var green: Double
    var blue: Double

    init(_ hex: UInt32) {
        red = Double((hex >> 16) & 0xFF) / 255
        green = Double((hex >> 8) & 0xFF) / 255
        blue = Double(hex & 0xFF) / 255
    }

    static let x = PlotColor(0xD62728), y = PlotColor(0x2CA02C), z = PlotColor(0x1F77B4), w = PlotColor(0x9467BD)
    static let other = [PlotColor(0xFF7F0E), PlotColor(0x8C564B), PlotColor(0x17BECF), PlotColor(0xE377C2)]
    static let text = PlotColor(0x222222), axis = PlotColor(0x555555), grid = PlotColor(0xDDDDDD)
    static let stepShade = PlotColor(0xEEF2F7), gap = PlotColor(0xE0301E), error = PlotColor(0x8B0000), stepMark = PlotColor(0x111111)
}
