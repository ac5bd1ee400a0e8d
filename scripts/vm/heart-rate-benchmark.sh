#!/usr/bin/env bash
# Heart rate over Bluetooth LE in the guest (BENCHMARKS.md, "Heart rate through BlueZ"): the
# release package installed in a fresh guest (scripts/vm/run.sh), BlueZ with two virtual
# controllers (btvirt), the test peripheral (scripts/vm/heart-rate-peripheral.py) notifying every
# INTERVAL seconds round and round. recorderd records it for SECONDS with a live subscriber
# (`recorderctl tail`); then, recorderd stopped, the peer — a Python D-Bus client subscribing to
# the same characteristic through the same BlueZ — for SECONDS. Latencies from the peripheral
# handing a notification to BlueZ (its CLOCK_MONOTONIC; one guest, one clock) to: recorderd's
# record (its `uptime`: when the notification reached the daemon), the line in the file (a
# watcher polling the file every 2 ms), the live subscriber's line; and to the peer's reception.
# CPU per notification (recorderd's process CPU while streaming, less the same span idle) and
# the resident memory a streaming heart-rate device adds.
#
#   scripts/vm/heart-rate-benchmark.sh [SECONDS] [INTERVAL]   default 60 and 0.05; needs root,
#                                      the rig, and the release package (scripts/build-deb.sh;
#                                      RECORDERD_DEB=PATH for another)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
interval=${2:-0.05}
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -ge 5 ] && [ "$seconds" -le 600 ] || { echo "heart-rate-benchmark.sh: SECONDS: 5 to 600" >&2; exit 64; }
[[ "$interval" =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "heart-rate-benchmark.sh: INTERVAL: seconds, e.g. 0.05" >&2; exit 64; }
deb=${RECORDERD_DEB:-$(ls .build-deb/recorderd_*_amd64.deb 2> /dev/null | sort | tail -1)}
[ -n "$deb" ] || { echo "heart-rate-benchmark.sh: no .build-deb/recorderd_*.deb (scripts/build-deb.sh)" >&2; exit 1; }
share=$(mktemp -d)
# Kept after a failure, to read (its output, the guest's console, the logs).
trap 'if [ "${kept:-}" = 1 ]; then echo "heart-rate-benchmark: the guest'"'"'s files are in $share" >&2; else rm -rf "$share"; fi' EXIT
kept=1
cp "$deb" "$share/recorderd.deb"
cp scripts/vm/heart-rate-peripheral.py "$share/peripheral.py"
# The peer: subscribes through BlueZ as recorderd does, stamps each notification on arrival.
cat > "$share/central.py" <<'PY'
import sys, time, dbus, dbus.mainloop.glib
from gi.repository import GLib
address, seconds, out = sys.argv[1], float(sys.argv[2]), open(sys.argv[3], "w")
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
path = "/org/bluez/hci0/dev_" + address.replace(":", "_")
om = dbus.Interface(bus.get_object("org.bluez", "/"), "org.freedesktop.DBus.ObjectManager")
hr = None
def changed(interface, values, invalidated, path=None):
    if path == hr and "Value" in values:
        out.write("%.6f %s\n" % (time.clock_gettime(time.CLOCK_MONOTONIC), bytes(values["Value"]).hex()))
bus.add_signal_receiver(changed, dbus_interface="org.freedesktop.DBus.Properties", signal_name="PropertiesChanged", path_keyword="path")
# The sensor may still be leaving recorderd's link (its Disconnect on stop): tried again.
for attempt in range(10):
    try:
        dbus.Interface(bus.get_object("org.bluez", path), "org.bluez.Device1").Connect(timeout=60)
        while not dbus.Interface(bus.get_object("org.bluez", path), "org.freedesktop.DBus.Properties").Get("org.bluez.Device1", "ServicesResolved"):
            time.sleep(0.1)
        hr = [p for p, i in om.GetManagedObjects().items() if p.startswith(path) and i.get("org.bluez.GattCharacteristic1", {}).get("UUID", "").startswith("00002a37")][0]
        dbus.Interface(bus.get_object("org.bluez", hr), "org.bluez.GattCharacteristic1").StartNotify()
        break
    except dbus.exceptions.DBusException as error:
        print("peer: attempt %d: %s" % (attempt + 1, error), file=sys.stderr)
        time.sleep(1)
loop = GLib.MainLoop()
GLib.timeout_add(int(seconds * 1000), loop.quit)
started = time.process_time()
loop.run()
# The peer's own CPU while receiving (its process: Python and libdbus).
print("peer cpu_seconds %.3f" % (time.process_time() - started))
PY
# Stamps each line of standard input (the live subscriber's) on arrival.
cat > "$share/stamp.py" <<'PY'
import sys, time
for line in iter(sys.stdin.buffer.readline, b""):
    sys.stdout.write("%.6f %s" % (time.clock_gettime(time.CLOCK_MONOTONIC), line.decode()))
    sys.stdout.flush()
PY
# Stamps each whole line appended to a file, polling it every 2 ms.
cat > "$share/watch.py" <<'PY'
import os, sys, time
path, seconds, out = sys.argv[1], float(sys.argv[2]), open(sys.argv[3], "w")
end = time.clock_gettime(time.CLOCK_MONOTONIC) + seconds
while not os.path.exists(path): time.sleep(0.002)
f, rest = open(path, "rb"), b""
while time.clock_gettime(time.CLOCK_MONOTONIC) < end:
    chunk = f.read()
    if chunk:
        now = time.clock_gettime(time.CLOCK_MONOTONIC)
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        for line in lines: out.write("%.6f %s\n" % (now, line.decode()))
    else:
        time.sleep(0.002)
PY
cat > "$share/script" <<EOF
#!/bin/sh
set -u
seconds=$seconds
interval=$interval
EOF
cat >> "$share/script" <<'EOF'
cd /vmtest
DEBIAN_FRONTEND=noninteractive apt-get install -y /vmtest/recorderd.deb > /dev/null 2>&1 || { echo "install failed"; exit 1; }
echo "kernel $(uname -r); cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
modprobe bluetooth; modprobe hci_vhci
btvirt -l2 > /dev/null 2>&1 &
systemctl start bluetooth
for i in $(seq 300); do [ "$(busctl tree org.bluez 2>/dev/null | grep -c '/org/bluez/hci[0-9]*$')" = 2 ] && break; sleep 0.1; done
address=$(busctl get-property org.bluez /org/bluez/hci1 org.bluez.Adapter1 Address | cut -d'"' -f2)
python3 /vmtest/peripheral.py hci1 /vmtest/sent.log "$interval" 0 0 loop > /tmp/peripheral.out 2>&1 &
timeout 60 sh -c 'tail -n +1 -f /tmp/peripheral.out | grep -q -m1 ready' || { echo "no peripheral"; exit 1; }
sed -i "s|\"devices\": \[|\"devices\": [{\"name\": \"hr0\", \"kind\": \"heartRate\", \"address\": \"$address\"},|" /etc/recorderd/recorderd.json
systemctl restart recorderd.service; recorderctl status > /dev/null || { echo "status failed"; exit 1; }
pid=$(systemctl show -p MainPID --value recorderd.service)
cpu() { awk '{print $14 + $15}' /proc/$pid/stat; }
rss() { awk '/^VmRSS:/ {print $2}' /proc/$pid/status; }
echo "ticks $(getconf CLK_TCK)"
# Idle: the configured device not sampling, the same span.
c0=$(cpu); r0=$(rss); sleep "$seconds"; c1=$(cpu)
echo "idle cpu_ticks $((c1 - c0)) rss_kb $r0"
started=$(recorderctl start bench --actions '[{"identifier": "heartRate", "type": "heartRate", "device": "hr0"}]') || { echo "start failed"; exit 1; }
uuid=$(echo "$started" | sed -n 1p); dir=$(echo "$started" | sed -n 2p)
recorderctl tail hr0 --json | python3 /vmtest/stamp.py > /vmtest/tail.txt &
python3 /vmtest/watch.py "$dir/heartRate.jsonl" "$((seconds + 5))" /vmtest/file.txt &
watcher=$!
timeout 60 sh -c 'until grep -q heartRate /vmtest/tail.txt 2>/dev/null; do sleep 0.1; done'
: > /vmtest/sent.log
c2=$(cpu); sleep "$seconds"; c3=$(cpu); r1=$(rss)
echo "streaming cpu_ticks $((c3 - c2)) rss_kb $r1"
recorderctl finish "$uuid" > /dev/null
wait "$watcher"
cp "$dir/heartRate.jsonl" /vmtest/recorded.jsonl; cp /vmtest/sent.log /vmtest/sent-recorderd.log
pkill -f "recorderctl tail" || true
systemctl stop recorderd.service recorderd.socket
# The peer, the same notifications through the same BlueZ.
: > /vmtest/sent.log
python3 /vmtest/central.py "$address" "$seconds" /vmtest/peer.txt 2>&1 || echo "the peer failed: $?"
cp /vmtest/sent.log /vmtest/sent-peer.log
echo done
EOF
chmod +x "$share/script"
echo "heart-rate-benchmark: guest with $(basename "$deb"), $seconds s, a notification every $interval s" >&2
timeout $((seconds * 4 + 400)) scripts/vm/run.sh "$share" || true
[ "$(cat "$share/status" 2> /dev/null)" = 0 ] && grep -q '^done' "$share/output" || { cat "$share/output" "$share/console.log" >&2; exit 1; }
python3 - "$share" "$seconds" <<'PY'
import json, os, sys
share, seconds = sys.argv[1], float(sys.argv[2])
out = open(os.path.join(share, "output")).read().splitlines()
print(out[0])
facts = {l.split()[0]: l.split()[1:] for l in out if l.split() and l.split()[0] in ("idle", "streaming", "ticks", "peer")}
def rate(h):
    b = bytes.fromhex(h)
    if b[0] & 1:
        return b[1] | b[2] << 8 if len(b) >= 3 else None
    return b[1] if len(b) >= 2 else None
def sends(name):
    # The peripheral's log was emptied under it (the run's start): the bytes before its next
    # write read back as NULs.
    rows = [l.replace("\x00", "").split() for l in open(os.path.join(share, name))]
    rows = [r for r in rows if len(r) == 2]
    return [(float(t), rate(h)) for t, h in rows if h not in ("dropped", "back") and rate(h) is not None]
def match(sent, arrivals):
    """Pairs each arrival (time, rate) with the earliest unpaired send of that rate before it, in
    order (the sequence repeats): {arrival time: send time}."""
    pairs, i = {}, 0
    for t, r in arrivals:
        j = i
        while j < len(sent) and (sent[j][1] != r or sent[j][0] > t):
            j += 1
        if j == len(sent): continue
        pairs[t] = sent[j][0]; i = j + 1
    return pairs
def pct(v, q): v = sorted(v); return v[min(len(v) - 1, int(q * len(v)))] * 1e3
records = [json.loads(l) for l in open(os.path.join(share, "recorded.jsonl")) if '"heartRate":' in l]
sent_at = match(sends("sent-recorderd.log"), [(r["uptime"], r["heartRate"]) for r in records])
rec = [u - s for u, s in sent_at.items()]
def stamped(name):
    rows = []
    for l in open(os.path.join(share, name)):
        t, _, line = l.partition(" ")
        if '"heartRate":' in line:
            u = json.loads(line)["uptime"]
            if u in sent_at: rows.append((float(t), u))
    return rows
filel = [t - sent_at[u] for t, u in stamped("file.txt")]
tail = stamped("tail.txt")
tails = [t - u for t, u in tail]
tail_total = [t - sent_at[u] for t, u in tail]
peer_rows = [l.split() for l in open(os.path.join(share, "peer.txt"))]
peer_at = match(sends("sent-peer.log"), [(float(t), rate(h)) for t, h in peer_rows if rate(h) is not None])
peer = [a - s for a, s in peer_at.items()]
ticks = float(facts["ticks"][0])
idle, busy = float(facts["idle"][1]) / ticks, float(facts["streaming"][1]) / ticks
n = len(records)
print("| from → to | n | p50 (ms) | p99 (ms) |")
print("| --- | --- | --- | --- |")
print(f"| sent → recorderd's record (its uptime) | {len(rec)} | {pct(rec, .5):.2f} | {pct(rec, .99):.2f} |")
print(f"| sent → its line in the file | {len(filel)} | {pct(filel, .5):.1f} | {pct(filel, .99):.1f} |")
print(f"| sent → the live subscriber's line | {len(tail_total)} | {pct(tail_total, .5):.2f} | {pct(tail_total, .99):.2f} |")
print(f"| recorderd's record → the live subscriber's line | {len(tails)} | {pct(tails, .5):.2f} | {pct(tails, .99):.2f} |")
print(f"| sent → the peer's reception (Python dbus, same BlueZ) | {len(peer)} | {pct(peer, .5):.2f} | {pct(peer, .99):.2f} |")
print(f"ratio recorderd / peer, sent → reception: p50 {pct(rec, .5) / pct(peer, .5):.2f}, p99 {pct(rec, .99) / pct(peer, .99):.2f}")
print(f"CPU (recorderd's process): idle {idle:.2f} s, streaming {busy:.2f} s over {seconds:.0f} s each; {n} notifications recorded; "
      f"{(busy - idle) / max(1, n) * 1e6:.0f} µs of guest CPU per notification (record, file, live subscriber)")
peer_cpu = float(facts["peer"][1])
print(f"CPU (the peer's process, receiving only): {peer_cpu:.2f} s over {seconds:.0f} s; {len(peer_rows)} notifications; "
      f"{peer_cpu / max(1, len(peer_rows)) * 1e6:.0f} µs per notification; recorderd / peer {((busy - idle) / max(1, n)) / (peer_cpu / max(1, len(peer_rows))):.2f}")
print(f"RSS: {facts['idle'][3]} kB with the device idle, {facts['streaming'][3]} kB streaming: +{int(facts['streaming'][3]) - int(facts['idle'][3])} kB")
PY
kept=0
