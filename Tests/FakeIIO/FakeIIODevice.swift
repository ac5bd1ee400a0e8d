/// A fake IIO device's sysfs description: what libiio's local backend will find.
public struct FakeIIODevice: Sendable {
    public var id: String
    public var name: String
    public var channels: [FakeIIOChannel]
    public var samplingFrequency: Double
    /// Written to `sampling_frequency_available` (nil: no such attribute).
    public var availableFrequencies: [Double]?
    /// Scale shared by channel type (`in_accel_scale`): IIO units per raw count.
    public var scales: [String: Double]
    /// Offset shared by channel type (`in_accel_offset`), in raw counts.
    public var offsets: [String: Double]
    /// `current_timestamp_clock` (nil: no such attribute).
    public var timestampClock: String?
    /// `in_<type>_mount_matrix` by channel type, as the kernel writes it (`"0, -1, 0; 1, 0, 0; 0, 0, 1"`).
    public var mountMatrices: [String: String] = [:]
    /// `in_<id>_raw` of every motion channel (nil: no raw values, as a device with buffered
    /// capture only).
    public var rawValues: [String: Int64]?
    /// The device has a buffer (`scan_elements/`, `buffer/`); a driver whose interrupt is not
    /// wired may have none (st_lsm6dsx).
    public var hasBuffer = true
    /// `trigger/current_trigger` (nil: no trigger directory, the driver fills its buffer; "":
    /// none set, as bmi160 without its interrupt).
    public var currentTrigger: String?
    /// A rate per channel type instead of `sampling_frequency` (bmi160): `in_<type>_sampling_frequency`
    /// and `in_<type>_sampling_frequency_available`.
    public var typeFrequencies: [String: (current: Double, available: [Double])]?

    public init(id: String = "iio:device0", name: String = "lsm6dsox", channels: [FakeIIOChannel] = FakeIIOChannel.imu(),
                samplingFrequency: Double = 104,
                availableFrequencies: [Double]? = [12.5, 26, 52, 104, 208, 416, 833, 1666, 3333, 6666, 10000],
                scales: [String: Double] = ["accel": 0.000598, "anglvel": 0.000153, "magn": 0.000244],
                offsets: [String: Double] = [:], timestampClock: String? = "realtime") {
        self.id = id
        self.name = name
        self.channels = channels
        self.samplingFrequency = samplingFrequency
        self.availableFrequencies = availableFrequencies
        self.scales = scales
        self.offsets = offsets
        self.timestampClock = timestampClock
    }

    /// The channel type of a channel id (`accel` of `accel_x`).
    public static func type(of channelID: String) -> String {
        String(channelID.split(separator: "_").first ?? "")
    }

    /// The scale of channel `id` (1 when none is set).
    public func scale(of id: String) -> Double { scales[Self.type(of: id)] ?? 1 }

    /// The offset of channel `id` (0 when none is set).
    public func offset(of id: String) -> Double { offsets[Self.type(of: id)] ?? 0 }
}
