import CLibIIO
import FoundationEssentials
import Glibc

/// A libiio context: every libiio call recorderd makes goes through this file's types, once, with
/// typed errors. A context and everything taken from it are used by one thread at a time.
final class IIOContext {
    let pointer: OpaquePointer
    /// The URI it was created from (nil: libiio's default context).
    let uri: String?

    private init(pointer: OpaquePointer, uri: String?) {
        self.pointer = pointer
        self.uri = uri
    }

    deinit { iio_context_destroy(pointer) }

    /// Creates the context for `uri`, or libiio's default context (which honours `IIOD_REMOTE`).
    static func open(uri: String?) throws(IIOError) -> IIOContext {
        errno = 0
        let created: OpaquePointer? = uri.map { iio_create_context_from_uri($0) } ?? iio_create_default_context()
        guard let created else {
            throw IIOError.call("cannot create the IIO context", result: -1, detail: uri ?? "default context")
        }
        return IIOContext(pointer: created, uri: uri)
    }

    /// The backend's name: `local`, `network`, `usb`, `xml`.
    var backendName: String { String(cString: iio_context_get_name(pointer)) }

    /// A context attribute (`uri`, `ip,ip-addr`…).
    func attribute(_ name: String) -> String? {
        iio_context_get_attr_value(pointer, name).map { String(cString: $0) }
    }

    /// True when the device's clocks are this machine's clocks: the local backend, or iiod on a
    /// loopback address.
    var sharesHostClocks: Bool {
        if backendName == "local" { return true }
        let address = attribute("ip,ip-addr") ?? attribute("uri") ?? uri ?? ""
        return address.contains("127.0.0.1") || address.contains("localhost") || address.contains("::1")
    }

    /// Sets the timeout of blocking operations (refill) in milliseconds.
    func setTimeout(milliseconds: UInt32) throws(IIOError) {
        let r = iio_context_set_timeout(pointer, milliseconds)
        if r < 0 { throw IIOError.call("cannot set the context timeout", result: Int(r)) }
    }

    /// Every device of the context.
    var devices: [IIODevice] {
        (0..<iio_context_get_devices_count(pointer)).compactMap { i in
            iio_context_get_device(pointer, i).map { IIODevice(pointer: $0, context: self) }
        }
    }

    /// The device whose name or id is `nameOrID`.
    func device(_ nameOrID: String) -> IIODevice? {
        devices.first { $0.id == nameOrID } ?? devices.first { $0.name == nameOrID }
    }
}

/// An IIO device of a context (kept alive by it).
struct IIODevice {
    let pointer: OpaquePointer
    let context: IIOContext

    var id: String { String(cString: iio_device_get_id(pointer)) }
    var name: String? { iio_device_get_name(pointer).map { String(cString: $0) } }
    /// `name (id)`, for messages.
    var label: String { name.map { "\($0) (\(id))" } ?? id }

    var channels: [IIOChannel] {
        (0..<iio_device_get_channels_count(pointer)).compactMap { i in
            iio_device_get_channel(pointer, i).map { IIOChannel(pointer: $0) }
        }
    }

    /// Input scan elements (channels that can be buffered).
    var bufferedChannels: [IIOChannel] {
        channels.filter { $0.isScanElement && !$0.isOutput }.sorted { $0.index < $1.index }
    }

    func hasAttribute(_ name: String) -> Bool { iio_device_find_attr(pointer, name) != nil }

    /// A device attribute's value without its trailing whitespace; nil when absent or unreadable.
    func attribute(_ name: String) -> String? {
        guard hasAttribute(name) else { return nil }
        var buffer = [CChar](repeating: 0, count: 1024)
        let n = iio_device_attr_read(pointer, name, &buffer, buffer.count)
        guard n >= 0 else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }.trimmingWhitespace()
    }

    func writeAttribute(_ name: String, _ value: String) throws(IIOError) {
        let n = iio_device_attr_write(pointer, name, value)
        if n < 0 { throw IIOError.call("cannot write \(name) of \(label)", result: Int(n), detail: value) }
    }

    /// True for a trigger (`triggerN`), not a sensor.
    var isTrigger: Bool { iio_device_is_trigger(pointer) }

    /// The device's trigger consumer interface: none, an empty `current_trigger`, or the trigger's
    /// name.
    ///
    /// libiio 0.24's local backend fails on an empty `current_trigger` (the kernel's file then
    /// reads as zero bytes, which it takes for an error, as it does a missing file): on a local
    /// context the file itself says which.
    var triggerConsumer: IIOCapturePolicy.Consumer {
        var trigger: OpaquePointer?
        if iio_device_get_trigger(pointer, &trigger) == 0 {
            guard let trigger else { return .unset }
            let device = IIODevice(pointer: trigger, context: context)
            return .set(device.name ?? device.id)
        }
        guard context.backendName == "local" else { return .absent }
        let descriptor = open("/sys/bus/iio/devices/\(id)/trigger/current_trigger", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .absent }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 256)
        let count = read(descriptor, &bytes, bytes.count)
        guard count >= 0 else { return .absent }
        let name = String(decoding: bytes[0..<count], as: UTF8.self).trimmingWhitespace()
        return name.isEmpty ? .unset : .set(name)
    }

    /// Makes `trigger` the device's current trigger.
    func setTrigger(_ trigger: IIODevice) throws(IIOError) {
        let r = iio_device_set_trigger(pointer, trigger.pointer)
        if r < 0 { throw IIOError.call("cannot set trigger \(trigger.label) on \(label)", result: Int(r)) }
    }

    /// Creates a buffer of `samples` scans for the enabled channels.
    func makeBuffer(samples: Int) throws(IIOError) -> IIOBuffer {
        errno = 0
        guard let buffer = iio_device_create_buffer(pointer, samples, false) else {
            throw IIOError.call("cannot create a buffer on \(label)", result: -1)
        }
        return IIOBuffer(pointer: buffer, device: self)
    }
}

/// A channel of an IIO device.
struct IIOChannel {
    let pointer: OpaquePointer

    var id: String { String(cString: iio_channel_get_id(pointer)) }
    var isScanElement: Bool { iio_channel_is_scan_element(pointer) }
    var isOutput: Bool { iio_channel_is_output(pointer) }
    var index: Int { Int(iio_channel_get_index(pointer)) }
    var format: iio_data_format { iio_channel_get_data_format(pointer).pointee }

    func hasAttribute(_ name: String) -> Bool { iio_channel_find_attr(pointer, name) != nil }

    /// A channel attribute (`scale`, `offset`; per-channel or shared by type).
    func attribute(_ name: String) -> String? {
        guard hasAttribute(name) else { return nil }
        var buffer = [CChar](repeating: 0, count: 256)
        let n = iio_channel_attr_read(pointer, name, &buffer, buffer.count)
        guard n >= 0 else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }.trimmingWhitespace()
    }

    func writeAttribute(_ name: String, _ value: String) throws(IIOError) {
        let n = iio_channel_attr_write(pointer, name, value)
        if n < 0 { throw IIOError.call("cannot write \(name) of channel \(id)", result: Int(n), detail: value) }
    }

    /// The channel's `raw` value (one read of its sysfs file, or one request to iiod).
    func readRaw() throws(IIOError) -> Int64 {
        var value: CLongLong = 0
        let r = iio_channel_attr_read_longlong(pointer, "raw", &value)
        if r < 0 { throw IIOError.call("cannot read \(id)_raw", result: Int(r)) }
        return Int64(value)
    }

    func enable() { iio_channel_enable(pointer) }
    func disable() { iio_channel_disable(pointer) }

    /// Converts one raw sample at `source` (the channel's storage format: endianness, shift,
    /// sign) to a host integer through libiio.
    @inline(__always)
    func convert(_ source: UnsafeRawPointer, format: iio_data_format) -> Int64 {
        var value: Int64 = 0
        withUnsafeMutableBytes(of: &value) { iio_channel_convert(pointer, $0.baseAddress, source) }
        // libiio writes `length / 8` bytes, sign-extended within them for signed formats.
        return IIOSampleFormat.narrow(value, bits: Int(format.length), signed: format.is_signed)
    }
}

/// A libiio buffer; `cancel()` may be called from another thread (through `IIOBufferCanceller`).
final class IIOBuffer {
    let pointer: OpaquePointer
    let device: IIODevice

    init(pointer: OpaquePointer, device: IIODevice) {
        self.pointer = pointer
        self.device = device
    }

    deinit { iio_buffer_destroy(pointer) }

    /// Blocks until the buffer is full (or the context timeout, or `cancel`); returns the bytes read.
    func refill() throws(IIOError) -> Int {
        let n = iio_buffer_refill(pointer)
        if n < 0 { throw IIOError.call("cannot read from \(device.label)", result: n) }
        return n
    }

    /// Bytes between consecutive scans.
    var step: Int { iio_buffer_step(pointer) }

    /// The first sample of `channel` in the buffer, and the end of the data.
    func first(_ channel: IIOChannel) -> UnsafeRawPointer? { iio_buffer_first(pointer, channel.pointer).map { UnsafeRawPointer($0) } }
    var end: UnsafeRawPointer? { iio_buffer_end(pointer).map { UnsafeRawPointer($0) } }

    var canceller: IIOBufferCanceller { IIOBufferCanceller(pointer: pointer) }
}

/// Cancels a blocked refill from another thread.
struct IIOBufferCanceller: @unchecked Sendable {
    // @unchecked: libiio documents iio_buffer_cancel as callable from another thread than the one
    // in iio_buffer_refill; the buffer outlives it (the sampler destroys it only after unregistering).
    let pointer: OpaquePointer

    func cancel() { iio_buffer_cancel(pointer) }
}
