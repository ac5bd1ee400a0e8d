/// One line of a panel: its name, colour, and per pixel column the lowest and highest value
/// that fell in it (an envelope: a 2 GB run draws in memory proportional to the plot's width).
struct PlotSeries {
    var name: String
    var color: PlotColor
    var minimum: [Double]
    var maximum: [Double]

    init(name: String, color: PlotColor, columns: Int) {
        self.name = name
        self.color = color
        minimum = Array(repeating: .infinity, count: columns)
        maximum = Array(repeating: -.infinity, count: columns)
    }

    mutating func add(_ value: Double?, column: Int) {
        guard let value, value.isFinite, column >= 0, column < minimum.count else { return }
        minimum[column] = Swift.min(minimum[column], value)
        maximum[column] = Swift.max(maximum[column], value)
    }

    /// The lowest and highest value of the series (nil when it has none).
    var range: (Double, Double)? {
        let low = minimum.min() ?? .infinity, high = maximum.max() ?? -.infinity
        return low <= high ? (low, high) : nil
    }
}
