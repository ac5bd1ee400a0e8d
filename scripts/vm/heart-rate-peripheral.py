#!/usr/bin/python3
"""A Bluetooth LE heart-rate sensor of the guest tests' own making, served by BlueZ.

Registers a GATT application (Heart Rate Service 0x180D: Heart Rate Measurement 0x2A37, notify;
Body Sensor Location 0x2A38, read; Battery Service 0x180F: Battery Level 0x2A19, read) and an
LE advertisement naming the Heart Rate Service, on one adapter, through BlueZ's GattManager1 and
LEAdvertisingManager1 D-Bus API. Once a central subscribes it sends a known sequence of
notifications, one every INTERVAL seconds; after DROP_AFTER of them it disconnects the central,
stops advertising for DROP_SECONDS (a strap out of range), then advertises again and goes on
with the rest once subscribed again. Every notification sent is a line of LOG: CLOCK_MONOTONIC
seconds when it was handed to BlueZ, then its bytes in hex (the guest's clock is the
recorder's). "ready" goes to stdout when the advertisement is registered.

A real controller sends its advertisement every advertising interval; btvirt's emulated
controller (BlueZ 5.66, emulator/btdev.c) reports it to a scanner only at the moment advertising
or scanning is enabled, and a report reaching the scanner's kernel before its discovery is under
way is lost (seen with the host loaded: scans of 70 s heard nothing). So while no central is
connected the advertisement is registered anew every second, and scanners hear it each time, as
they would hear a real sensor's next advertisement.

    heart-rate-peripheral.py ADAPTER LOG [INTERVAL] [DROP_AFTER] [DROP_SECONDS] [MODE]

MODE "once" (the default) sends the sequence once; "loop" sends it over and over with a malformed
notification (flags announcing a 16-bit rate, one byte after them) after each round, never
dropping out; "plain" is a device that is no heart-rate sensor: only the Battery Service, and an
advertisement without the Heart Rate Service. Options may follow the mode, comma-separated (the
two-guest pairing test, where this bluetoothd drives only the sensor):
  "discoverable"   the adapter discoverable, without time-out (a sensor in pairing mode);
  "encrypt"        notifications only over an encrypted link: a central must pair ("just works":
                   this side's default agent, NoInputNoOutput, accepts);
  "passkey=N"      notifications only over a link encrypted by a key made with a passkey
                   (MITM-protected): this side's default agent is KeyboardOnly and enters N, so a
                   central pairs only if it enters N too (both sides typing one fixed passkey, as
                   with a sensor whose passkey is printed on it).
Bonds the adapter holds are forgotten at start: every run starts unpaired.

Written for the tests from BlueZ's documented API (doc/gatt-api.txt, doc/advertising-api.txt).
"""
import sys
import time

import dbus
import dbus.exceptions
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

BLUEZ = "org.bluez"
OBJECT_MANAGER = "org.freedesktop.DBus.ObjectManager"
PROPERTIES = "org.freedesktop.DBus.Properties"
SERVICE = "org.bluez.GattService1"
CHARACTERISTIC = "org.bluez.GattCharacteristic1"
ADVERTISEMENT = "org.bluez.LEAdvertisement1"
AGENT = "org.bluez.Agent1"


def uuid16(short):
    return "0000%04x-0000-1000-8000-00805f9b34fb" % short


# The known sequence: every flag combination of the Heart Rate Measurement (Bluetooth SIG, Heart
# Rate Service 1.0 §3.1): 8- and 16-bit rates, contact detected / not detected / not supported,
# energy expended, none, one or several RR intervals (1/1024 s).
SEQUENCE = [
    bytes([0x06, 72]),                                        # 8-bit, contact detected
    bytes([0x16, 71, 0x55, 0x03]),                            # + one RR (853/1024 s)
    bytes([0x17, 140, 0x00, 0xB6, 0x01, 0xB8, 0x01]),         # 16-bit rate, two RR
    bytes([0x1E, 96, 0x34, 0x12, 0x80, 0x02, 0x7E, 0x02, 0x81, 0x02]),  # energy 0x1234 kJ, three RR
    bytes([0x04, 0]),                                         # contact lost (rate 0)
    bytes([0x04, 0]),
    bytes([0x06, 75]),                                        # contact found again
    bytes([0x00, 76]),                                        # contact not supported
    bytes([0x0F, 0x2C, 0x01, 0x00, 0x00]),                    # 16-bit 300 (the highest taken), energy 0
    bytes([0x10, 80, 0x00, 0x03, 0x00, 0x03, 0x00, 0x03, 0x00, 0x03, 0x00, 0x03, 0x00, 0x03, 0x00, 0x03]),  # seven RR
]


class Application(dbus.service.Object):
    def __init__(self, bus):
        self.path = "/org/recorderd/test"
        self.services = []
        dbus.service.Object.__init__(self, bus, self.path)

    @dbus.service.method(OBJECT_MANAGER, out_signature="a{oa{sa{sv}}}")
    def GetManagedObjects(self):
        objects = {}
        for service in self.services:
            objects[service.path] = service.properties()
            for characteristic in service.characteristics:
                objects[characteristic.path] = characteristic.properties()
        return objects


class Service(dbus.service.Object):
    def __init__(self, bus, index, uuid):
        self.path = "/org/recorderd/test/service%d" % index
        self.uuid = uuid
        self.characteristics = []
        dbus.service.Object.__init__(self, bus, self.path)

    def properties(self):
        return {SERVICE: {"UUID": self.uuid, "Primary": True,
                          "Characteristics": dbus.Array([c.path for c in self.characteristics], signature="o")}}

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return self.properties()[SERVICE]


class Characteristic(dbus.service.Object):
    def __init__(self, bus, service, index, uuid, flags, value=b""):
        self.path = "%s/char%d" % (service.path, index)
        self.uuid = uuid
        self.service = service
        self.flags = flags
        self.value = value
        self.notifying = False
        self.on_subscribe = None
        dbus.service.Object.__init__(self, bus, self.path)

    def properties(self):
        return {CHARACTERISTIC: {"Service": dbus.ObjectPath(self.service.path), "UUID": self.uuid,
                                 "Flags": dbus.Array(self.flags, signature="s")}}

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return self.properties()[CHARACTERISTIC]

    @dbus.service.method(CHARACTERISTIC, in_signature="a{sv}", out_signature="ay")
    def ReadValue(self, options):
        return dbus.Array(self.value, signature="y")

    @dbus.service.method(CHARACTERISTIC)
    def StartNotify(self):
        print("subscribed %.6f" % time.clock_gettime(time.CLOCK_MONOTONIC), flush=True)
        if not self.notifying:
            self.notifying = True
            if self.on_subscribe:
                self.on_subscribe()

    @dbus.service.method(CHARACTERISTIC)
    def StopNotify(self):
        self.notifying = False

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def notify(self, value):
        self.value = value
        self.PropertiesChanged(CHARACTERISTIC, {"Value": dbus.Array(value, signature="y")}, [])


class Advertisement(dbus.service.Object):
    def __init__(self, bus, service):
        self.path = "/org/recorderd/test/advertisement"
        self.service = service
        dbus.service.Object.__init__(self, bus, self.path)

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"Type": "peripheral", "ServiceUUIDs": dbus.Array([self.service], signature="s"),
                "LocalName": "recorderd HR", "Includes": dbus.Array([], signature="s")}

    @dbus.service.method(ADVERTISEMENT)
    def Release(self):
        pass


class Agent(dbus.service.Object):
    """This side's answers when a central pairs (org.bluez.Agent1, doc/agent-api.txt): the fixed
    passkey when one is set, else "yes" to a "just works" confirmation. Every request is printed."""

    def __init__(self, bus, passkey):
        self.path = "/org/recorderd/test/agent"
        self.passkey = passkey
        dbus.service.Object.__init__(self, bus, self.path)

    @dbus.service.method(AGENT, in_signature="o", out_signature="u")
    def RequestPasskey(self, device):
        print("agent: passkey asked by %s" % device, flush=True)
        return dbus.UInt32(self.passkey)

    @dbus.service.method(AGENT, in_signature="ou", out_signature="")
    def RequestConfirmation(self, device, passkey):
        print("agent: confirmation of %06d asked by %s" % (passkey, device), flush=True)

    @dbus.service.method(AGENT, in_signature="o", out_signature="")
    def RequestAuthorization(self, device):
        print("agent: authorization asked by %s" % device, flush=True)

    @dbus.service.method(AGENT, in_signature="os", out_signature="")
    def AuthorizeService(self, device, uuid):
        pass

    @dbus.service.method(AGENT, in_signature="ouq", out_signature="")
    def DisplayPasskey(self, device, passkey, entered):
        pass

    @dbus.service.method(AGENT, in_signature="", out_signature="")
    def Cancel(self):
        print("agent: cancelled", flush=True)

    @dbus.service.method(AGENT, in_signature="", out_signature="")
    def Release(self):
        pass


def main():
    adapter_name, log_path = sys.argv[1], sys.argv[2]
    interval = float(sys.argv[3]) if len(sys.argv) > 3 else 0.5
    drop_after = int(sys.argv[4]) if len(sys.argv) > 4 else len(SEQUENCE)
    drop_seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 10.0
    mode, *options = (sys.argv[6] if len(sys.argv) > 6 else "once").split(",")
    passkey = next((int(o[len("passkey="):]) for o in options if o.startswith("passkey=")), None)
    sequence = SEQUENCE + [bytes([0x01, 60])] if mode == "loop" else SEQUENCE
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    adapter_path = "/org/bluez/" + adapter_name
    adapter = bus.get_object(BLUEZ, adapter_path)
    adapter_properties = dbus.Interface(adapter, PROPERTIES)
    adapter_properties.Set("org.bluez.Adapter1", "Powered", dbus.Boolean(True))
    manager = dbus.Interface(bus.get_object(BLUEZ, "/"), OBJECT_MANAGER)
    if "discoverable" in options:
        adapter_properties.Set("org.bluez.Adapter1", "DiscoverableTimeout", dbus.UInt32(0))
        adapter_properties.Set("org.bluez.Adapter1", "Discoverable", dbus.Boolean(True))
    if passkey is not None or "encrypt" in options:
        for path, interfaces in manager.GetManagedObjects().items():
            if "org.bluez.Device1" in interfaces and path.startswith(adapter_path + "/"):
                dbus.Interface(adapter, "org.bluez.Adapter1").RemoveDevice(path)
        agent = Agent(bus, passkey or 0)
        agents = dbus.Interface(bus.get_object(BLUEZ, "/org/bluez"), "org.bluez.AgentManager1")
        agents.RegisterAgent(agent.path, "KeyboardOnly" if passkey is not None else "NoInputNoOutput")
        agents.RequestDefaultAgent(agent.path)
    security = ["encrypt-authenticated-notify"] if passkey is not None else ["encrypt-notify"] if "encrypt" in options else []

    app = Application(bus)
    heart = Service(bus, 0, uuid16(0x180D))
    measurement = Characteristic(bus, heart, 0, uuid16(0x2A37), ["notify"] + security)
    location = Characteristic(bus, heart, 1, uuid16(0x2A38), ["read"], bytes([1]))  # 1: chest
    heart.characteristics = [measurement, location]
    battery = Service(bus, 1, uuid16(0x180F))
    level = Characteristic(bus, battery, 0, uuid16(0x2A19), ["read"], bytes([87]))
    battery.characteristics = [level]
    app.services = [battery] if mode == "plain" else [heart, battery]
    advertisement = Advertisement(bus, uuid16(0x180F) if mode == "plain" else uuid16(0x180D))
    gatt = dbus.Interface(adapter, "org.bluez.GattManager1")
    advertising = dbus.Interface(adapter, "org.bluez.LEAdvertisingManager1")
    loop = GLib.MainLoop()
    log = open(log_path, "w", buffering=1)
    state = {"next": 0, "sending": False, "dropped": False, "ready": False, "registered": False,
             "connected": False, "busy": False}

    def fail(error):
        print("peripheral: %s" % error, flush=True)
        loop.quit()

    def advertise(attempt=1, then=None):
        # A controller may refuse for a moment (still tearing down the last connection): a
        # sensor keeps trying, five times a second apart here.
        def refused(error):
            if attempt >= 5:
                return fail(error)
            print("peripheral: advertising refused (%s); again" % error, flush=True)
            GLib.timeout_add(1000, lambda: (advertise(attempt + 1, then), False)[-1])
        def registered():
            state["registered"] = True
            if not state["ready"]:
                state["ready"] = True
                print("ready", flush=True)
            if then:
                then()
        advertising.RegisterAdvertisement(advertisement.path, {}, reply_handler=registered, error_handler=refused)

    # The advertisement unregistered (when it is) and registered again, one change at a time;
    # not while a central is connected or the sensor is out of reach on purpose.
    def readvertise():
        if state["busy"]:
            return
        state["busy"] = True
        def done():
            state["busy"] = False
        def register(*_):
            state["registered"] = False
            if state["connected"] or state["dropped"]:
                return done()
            advertise(then=done)
        if state["registered"]:
            advertising.UnregisterAdvertisement(advertisement.path, reply_handler=register, error_handler=register)
        else:
            register()

    def every_second():
        if state["registered"] and not state["connected"] and not state["dropped"]:
            readvertise()
        return True

    def send():
        if not measurement.notifying:
            state["sending"] = False
            return False
        i = state["next"]
        if i >= len(sequence) and mode == "loop":
            i = 0
        if i >= len(sequence):
            print("sent all", flush=True)
            state["sending"] = False
            return False
        value = sequence[i]
        measurement.notify(value)
        log.write("%.6f %s\n" % (time.clock_gettime(time.CLOCK_MONOTONIC), value.hex()))
        state["next"] = i + 1
        if state["next"] == drop_after and mode != "loop":
            GLib.timeout_add(int(interval * 1000), drop)
            state["sending"] = False
            return False
        return True

    def drop():
        # Not while the advertisement is being registered anew: its registration would land
        # after this and advertise the sensor while it is meant to be out of reach.
        if state["busy"]:
            GLib.timeout_add(50, drop)
            return False
        state["dropped"] = True
        measurement.notifying = False
        print("dropping", flush=True)
        if state["registered"]:
            state["registered"] = False
            advertising.UnregisterAdvertisement(advertisement.path, reply_handler=lambda: None, error_handler=lambda e: None)
        for path, interfaces in manager.GetManagedObjects().items():
            device = interfaces.get("org.bluez.Device1")
            if device and path.startswith(adapter_path + "/") and device.get("Connected"):
                dbus.Interface(bus.get_object(BLUEZ, path), "org.bluez.Device1").Disconnect()
        log.write("%.6f dropped\n" % time.clock_gettime(time.CLOCK_MONOTONIC))
        GLib.timeout_add(int(drop_seconds * 1000), lambda: (log.write("%.6f back\n" % time.clock_gettime(time.CLOCK_MONOTONIC)),
                                                            state.update(dropped=False), advertise(), False)[-1])
        return False

    # As a real sensor does, advertise again once the central is gone (the controller stopped
    # advertising when it connected) — except while out of reach on purpose.
    def connection_changed(interface, changed, invalidated, path=None):
        if interface != "org.bluez.Device1" or not path.startswith(adapter_path + "/") or "Connected" not in changed:
            return
        state["connected"] = bool(changed["Connected"])
        if state["connected"]:
            return
        measurement.notifying = False
        if state["dropped"]:
            return
        GLib.idle_add(lambda: (readvertise(), False)[-1])

    bus.add_signal_receiver(connection_changed, dbus_interface=PROPERTIES, signal_name="PropertiesChanged", path_keyword="path")

    # A central BlueZ had not met before comes as a new object, already connected.
    def device_added(path, interfaces):
        device = interfaces.get("org.bluez.Device1")
        if device is not None and path.startswith(adapter_path + "/") and device.get("Connected"):
            state["connected"] = True

    bus.add_signal_receiver(device_added, dbus_interface=OBJECT_MANAGER, signal_name="InterfacesAdded")

    def subscribed():
        state["connected"] = True
        if not state["sending"]:
            state["sending"] = True
            GLib.timeout_add(int(interval * 1000), send)

    measurement.on_subscribe = subscribed
    gatt.RegisterApplication(app.path, {}, reply_handler=advertise, error_handler=fail)
    GLib.timeout_add(1000, every_second)
    loop.run()


if __name__ == "__main__":
    main()
