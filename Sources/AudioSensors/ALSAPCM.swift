import CALSA
import FoundationEssentials
import Glibc

/// An open ALSA capture PCM: every libasound call recorderd makes goes through this type, once,
/// with typed errors. Used by one thread at a time.
final class ALSAPCM {
    let handle: OpaquePointer
    let name: String
    /// Actual parameters after `configure`.
    private(set) var sampleRate = 0
    private(set) var channels = 0
    private(set) var periodFrames = 0
    private(set) var bufferFrames = 0

    /// Opens `name` for capture, non-blocking (reads are driven by `poll`).
    init(name: String) throws(ALSAError) {
        var pcm: OpaquePointer?
        let r = snd_pcm_open(&pcm, name, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK)
        guard r >= 0, let pcm else { throw ALSAError("cannot open PCM \(name.debugDescription) for capture", code: r) }
        handle = pcm
        self.name = name
    }

    deinit { snd_pcm_close(handle) }

    /// Interleaved S16_LE at the nearest rate, `channels`, periods of about `periodFrames`;
    /// timestamps from CLOCK_MONOTONIC.
    func configure(sampleRate: Int, channels: Int, periodFrames: Int) throws(ALSAError) {
        var hw: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hw) >= 0, let hw else { throw ALSAError("cannot allocate hardware parameters", code: -ENOMEM) }
        defer { snd_pcm_hw_params_free(hw) }
        func check(_ r: Int32, _ what: String) throws(ALSAError) {
            if r < 0 { throw ALSAError("\(name): cannot set \(what)", code: r) }
        }
        try check(snd_pcm_hw_params_any(handle, hw), "any parameters")
        try check(snd_pcm_hw_params_set_access(handle, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "interleaved access")
        try check(snd_pcm_hw_params_set_format(handle, hw, SND_PCM_FORMAT_S16_LE), "format S16_LE")
        try check(snd_pcm_hw_params_set_channels(handle, hw, UInt32(channels)), "\(channels) channels")
        var rate = UInt32(sampleRate)
        var dir: Int32 = 0
        try check(snd_pcm_hw_params_set_rate_near(handle, hw, &rate, &dir), "rate \(sampleRate)")
        var period = snd_pcm_uframes_t(periodFrames)
        try check(snd_pcm_hw_params_set_period_size_near(handle, hw, &period, &dir), "period of \(periodFrames) frames")
        var buffer = snd_pcm_uframes_t(periodFrames * 8)
        try check(snd_pcm_hw_params_set_buffer_size_near(handle, hw, &buffer), "buffer of \(periodFrames * 8) frames")
        try check(snd_pcm_hw_params(handle, hw), "hardware parameters")
        var actualPeriod = snd_pcm_uframes_t(0)
        _ = snd_pcm_hw_params_get_period_size(hw, &actualPeriod, &dir)
        var actualBuffer = snd_pcm_uframes_t(0)
        _ = snd_pcm_hw_params_get_buffer_size(hw, &actualBuffer)
        self.sampleRate = Int(rate)
        self.channels = channels
        self.periodFrames = max(1, Int(actualPeriod))
        self.bufferFrames = max(self.periodFrames, Int(actualBuffer))

        var sw: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&sw) >= 0, let sw else { throw ALSAError("cannot allocate software parameters", code: -ENOMEM) }
        defer { snd_pcm_sw_params_free(sw) }
        try check(snd_pcm_sw_params_current(handle, sw), "current software parameters")
        _ = snd_pcm_sw_params_set_tstamp_mode(handle, sw, SND_PCM_TSTAMP_ENABLE)
        _ = snd_pcm_sw_params_set_tstamp_type(handle, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC)
        try check(snd_pcm_sw_params(handle, sw), "software parameters")
    }

    func start() throws(ALSAError) {
        let p = snd_pcm_prepare(handle)
        if p < 0 { throw ALSAError("\(name): cannot prepare", code: p) }
        let s = snd_pcm_start(handle)
        if s < 0 { throw ALSAError("\(name): cannot start", code: s) }
    }

    /// The PCM's poll descriptors.
    func pollDescriptors() -> [pollfd] {
        let count = Int(snd_pcm_poll_descriptors_count(handle))
        var fds = [pollfd](repeating: pollfd(), count: max(0, count))
        let n = snd_pcm_poll_descriptors(handle, &fds, UInt32(fds.count))
        return Array(fds.prefix(Int(max(0, n))))
    }

    /// True when the polled descriptors say capture data (or an error state) is ready.
    func isReadable(_ fds: UnsafeMutableBufferPointer<pollfd>) -> Bool {
        var revents: UInt16 = 0
        guard snd_pcm_poll_descriptors_revents(handle, fds.baseAddress, UInt32(fds.count), &revents) >= 0 else { return true }
        return revents & UInt16(POLLIN | POLLERR) != 0
    }

    /// Reads up to `frames` frames into a new array of exactly the samples read (empty: nothing
    /// yet), or throws an ALSA error (-EPIPE: overrun). The array is the chunk's own storage: no
    /// copy follows the read.
    func read(frames: Int) throws(ALSAError) -> [Int16] {
        var result: Int = 0
        let samples = [Int16](unsafeUninitializedCapacity: frames * channels) { buffer, count in
            result = snd_pcm_readi(handle, buffer.baseAddress, snd_pcm_uframes_t(frames))
            count = max(0, result) * channels
        }
        if result == -Int(EAGAIN) { return [] }
        if result < 0 { throw ALSAError("\(name): read", code: Int32(result)) }
        return samples
    }

    /// Recovers from an overrun or suspend (`snd_pcm_recover`) and restarts capture.
    func recover(_ error: ALSAError) throws(ALSAError) {
        let r = snd_pcm_recover(handle, error.code, 1)
        if r < 0 { throw ALSAError("\(name): cannot recover", code: r) }
        _ = snd_pcm_start(handle)
    }

    /// CLOCK_MONOTONIC seconds of the first of `frames` just read, from ALSA's status timestamp
    /// and the frames still buffered; nil when the PCM gives no timestamp.
    func firstFrameUptime(framesRead: Int) -> Double? {
        var status: OpaquePointer?
        guard snd_pcm_status_malloc(&status) >= 0, let status else { return nil }
        defer { snd_pcm_status_free(status) }
        guard snd_pcm_status(handle, status) >= 0 else { return nil }
        var ts = snd_htimestamp_t()
        snd_pcm_status_get_htstamp(status, &ts)
        guard ts.tv_sec != 0 || ts.tv_nsec != 0 else { return nil }
        let avail = Int(snd_pcm_status_get_avail(status))
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9 - Double(avail + framesRead) / Double(sampleRate)
    }

    /// The sound card behind the PCM (0 or more), or -1 for a PCM that no card paces (`null`,
    /// `file` over `null`, a sound server's plugin): its status timestamps are not a card's.
    var card: Int {
        var info: OpaquePointer?
        guard snd_pcm_info_malloc(&info) >= 0, let info else { return -1 }
        defer { snd_pcm_info_free(info) }
        guard snd_pcm_info(handle, info) >= 0 else { return -1 }
        return Int(snd_pcm_info_get_card(info))
    }

    /// Frames captured and not yet read.
    var buffered: Int { max(0, Int(snd_pcm_avail(handle))) }
}
