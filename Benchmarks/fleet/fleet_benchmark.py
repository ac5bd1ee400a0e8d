#!/usr/bin/env python3
"""The fleet link's benchmark (issue 16), run by scripts/fleet-benchmark.sh: release recorderd and
recorderctl, a real mosquitto on a loopback port; mosquitto's own clients are the peer.

  upload   the 1-hour 100 Hz run uploaded by recorderd to `recorderctl collect` (from recorderd's
           start to the run acknowledged in its outbox), against mosquitto_pub + mosquitto_sub
           moving the run's motion file through the same broker at QoS 1 (one retained message).
  fanin    50 recorderd, each with one 1-minute run, to two collectors sharing the load ($share),
           against 50 mosquitto_pub of the same file to one mosquitto_sub.
  outbox   recorderd's memory with 1,000 ended runs queued (no collector), against the same
           recorderd and runs without mqtt.
  fanin200 200 simulated Pis (recorderd's fleet link, 200 of them in one FanInPis process), each
           uploading one 5-minute run at once: to two collectors sharing the load (MQTT 5, $share),
           then to one collector per site (MQTT 3.1.1, --site; two sites): runs per second, the
           collectors' CPU and RSS; against 200 mosquitto_pub of the same motion file to one
           mosquitto_sub.

    fleet_benchmark.py BIN_DIR WORK_DIR HOUR_DATA MINUTE_DATA SHORT_DATA FIVE_DATA REPLAY_CSV [PART...]"""
import atexit
import hashlib
import json
import re
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid

bin_dir, work, hour_data, minute_data, short_data, five_data, replay_csv = sys.argv[1:8]
parts = sys.argv[8:] or ["upload", "fanin", "outbox", "fanin200"]
TICK = os.sysconf("SC_CLK_TCK")
spawned = []


@atexit.register
def stop_all():
    """Every process this script started is stopped by its PID, whatever happened."""
    for p in spawned:
        if p.poll() is None:
            p.kill()
            p.wait()


def spawn(args, **options):
    p = subprocess.Popen(args, **options)
    spawned.append(p)
    return p


def children(pid):
    """The live children of a process (recorderd's: recorderd-services, which holds the fleet link)."""
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return found


def cpu(pid):
    """utime + stime of a process (s), its waited-for children and its live ones included."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / TICK + sum(cpu(c) for c in children(pid))


def memory(pid):
    """VmRSS and VmHWM (MiB) of a process and its live children, summed."""
    values = {"VmRSS": 0.0, "VmHWM": 0.0}
    for p in [pid] + children(pid):
        with open(f"/proc/{p}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in values:
                    values[key] += int(rest.split()[0]) / 1024
    return values


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise SystemExit(f"timed out waiting for {what}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    def __init__(self, name):
        self.port = free_port()
        self.log = f"{work}/{name}-broker.log"
        conf = f"{work}/{name}-broker.conf"
        with open(conf, "w") as f:
            f.write(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
                    f"log_dest file {self.log}\n{'user root' + chr(10) if os.geteuid() == 0 else ''}log_type error\nlog_type warning\nlog_type subscribe\n")
        self.process = spawn(["mosquitto", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(self.listening, 10, "mosquitto")

    def listening(self):
        try:
            socket.create_connection(("127.0.0.1", self.port), 0.2).close()
            return True
        except OSError:
            return False

    def subscribed(self, client):
        try:
            with open(self.log, errors="replace") as f:
                return client in f.read()
        except FileNotFoundError:
            return False

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(10)


def collector(broker, directory, share=None, name="collector", plain=False, extra=()):
    args = [f"{bin_dir}/recorderctl", "collect", "--broker", f"mqtt://127.0.0.1:{broker.port}", "--dir", directory]
    if share:
        args += ["--share", share]
    if plain:
        args += ["--plain-chunks"]
    args += list(extra)
    out = open(f"{work}/{name}.log", "w")
    p = spawn(args, stdout=out, stderr=subprocess.STDOUT)
    wait_until(lambda: "collecting from" in open(f"{work}/{name}.log").read(), 20, name)
    return p


def recorderd(directory, data, broker, device, mqtt=True):
    os.makedirs(directory, exist_ok=True)
    config = {"socket": f"{directory}/control.sock", "dataDirectory": data,
              "devices": [{"name": "imu0", "kind": "replay", "file": replay_csv, "frequency": 100,
                           "columns": {"accelerometer": ["acc_x", "acc_y", "acc_z"], "gyro": ["gyr_x", "gyr_y", "gyr_z"]},
                           "units": {"accelerometer": "g", "gyro": "deg/s"}}]}
    if mqtt:
        config["mqtt"] = {"broker": f"mqtt://127.0.0.1:{broker.port}", "site": "bench", "device": device}
    with open(f"{directory}/recorderd.json", "w") as f:
        json.dump(config, f)
    log = open(f"{directory}/recorderd.log", "w")
    return spawn([f"{bin_dir}/recorderd", "--config", f"{directory}/recorderd.json", "--log-level", "notice"],
                            stdout=log, stderr=subprocess.STDOUT)


def stop(process):
    process.send_signal(signal.SIGTERM)
    process.wait(30)


def runs(data):
    found = []
    for task in sorted(os.listdir(f"{data}/runs")):
        for name in sorted(os.listdir(f"{data}/runs/{task}")):
            found.append((task, name, f"{data}/runs/{task}/{name}"))
    return found


def run_uuid(name):
    return name[-36:].upper()


def acknowledged(data, run):
    try:
        with open(f"{data}/fleet/outbox/{run}.json") as f:
            return json.load(f)["state"] == "acknowledged"
    except (OSError, ValueError, KeyError):
        return False


def sums(folder):
    result = {}
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                result[os.path.relpath(path, folder)] = hashlib.file_digest(f, "sha256").hexdigest()
    return result


def size(folder):
    return sum(os.path.getsize(os.path.join(r, n)) for r, _, files in os.walk(folder) for n in files)


def timed(args, stdout=subprocess.DEVNULL):
    """Runs a peer command: (elapsed s, CPU s)."""
    began = time.monotonic()
    p = subprocess.Popen(args, stdout=stdout, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        raise SystemExit(f"{args[0]} failed: {status}")
    return time.monotonic() - began, usage.ru_utime + usage.ru_stime


def upload():
    broker = Broker("upload")
    (task, name, folder), = runs(hour_data)
    total = size(folder)
    motion = f"{folder}/motion.jsonl"
    mb = total / 1e6
    rows = []
    for plain in (True, False):
        label = "plain" if plain else "zstd"
        collected = f"{work}/collected-{label}"
        shutil.rmtree(collected, ignore_errors=True)
        shutil.rmtree(f"{hour_data}/fleet", ignore_errors=True)
        c = collector(broker, collected, name=f"collector-{label}", plain=plain)
        broker_cpu, collector_cpu = cpu(broker.process.pid), cpu(c.pid)
        began = time.monotonic()
        pi = recorderd(f"{work}/pi-hour-{label}", hour_data, broker, "pi-hour")
        wait_until(lambda: acknowledged(hour_data, run_uuid(name)), 600, "the hour's upload")
        elapsed = time.monotonic() - began
        ours = {"elapsed": elapsed, "pi": cpu(pi.pid), "collector": cpu(c.pid) - collector_cpu, "broker": cpu(broker.process.pid) - broker_cpu}
        stop(pi)
        stop(c)
        wire = int(re.search(r"\((\d+) bytes of chunks on the wire\)", open(f"{work}/collector-{label}.log").read()).group(1))
        identical = sums(f"{collected}/bench/pi-hour/{task}/{name}") == sums(folder)
        rows.append((label, ours, wire, identical))
    # The peer: the motion file through the same broker, QoS 1, retained (published, then fetched).
    broker_cpu = cpu(broker.process.pid)
    pub_elapsed, pub_cpu = timed(["mosquitto_pub", "-p", str(broker.port), "-q", "1", "-r", "-t", "peer/hour", "-f", motion])
    with open(f"{work}/peer-hour.out", "wb") as out:
        sub_elapsed, sub_cpu = timed(["mosquitto_sub", "-p", str(broker.port), "-q", "1", "-t", "peer/hour", "-C", "1", "-N"], stdout=out)
    peer_ok = os.path.getsize(f"{work}/peer-hour.out") == os.path.getsize(motion)
    peer = {"elapsed": pub_elapsed + sub_elapsed, "clients": pub_cpu + sub_cpu, "broker": cpu(broker.process.pid) - broker_cpu}
    # zstd's own program on the same file at level 3 (the compression alone, both ways).
    zstd_elapsed, zstd_cpu = timed(["zstd", "-q", "-3", "-f", motion, "-o", f"{work}/peer-hour.zst"])
    unzstd_elapsed, unzstd_cpu = timed(["zstd", "-q", "-d", "-f", f"{work}/peer-hour.zst", "-o", f"{work}/peer-hour.unzst"])
    zstd_size = os.path.getsize(f"{work}/peer-hour.zst")
    broker.stop()
    peer_mb = os.path.getsize(motion) / 1e6
    print(f"\nupload of the 1-hour 100 Hz run: {len(sums(folder))} files, {mb:.1f} MB; peer's copy whole: {peer_ok}")
    print("| side | MB | MB on the wire | elapsed (s) | MB/s | CPU s per MB: Pi / collector / broker |")
    print("| --- | --- | --- | --- | --- | --- |")
    for label, ours, wire, identical in rows:
        print(f"| recorderd → recorderctl collect, {label} chunks (copy identical: {identical}) | {mb:.1f} | {wire / 1e6:.1f} | {ours['elapsed']:.2f} | "
              f"{mb / ours['elapsed']:.1f} | {ours['pi'] / mb:.4f} / {ours['collector'] / mb:.4f} / {ours['broker'] / mb:.4f} |")
    print(f"| peer: mosquitto_pub → mosquitto_sub (motion file, one message) | {peer_mb:.1f} | {peer_mb:.1f} | {peer['elapsed']:.2f} | "
          f"{peer_mb / peer['elapsed']:.1f} | {peer['clients'] / peer_mb:.4f} (both clients) / — / {peer['broker'] / peer_mb:.4f} |")
    print(f"| peer: zstd -3 then zstd -d of the motion file (no network) | {peer_mb:.1f} | {zstd_size / 1e6:.1f} | {zstd_elapsed + unzstd_elapsed:.2f} | "
          f"| {zstd_cpu / peer_mb:.4f} (compress) / {unzstd_cpu / peer_mb:.4f} (decompress) / — |")
    for label, ours, wire, _ in rows:
        print(f"ratio ({label}: recorderd's MB/s over the peer's): {(mb / ours['elapsed']) / (peer_mb / peer['elapsed']):.2f}; "
              f"bytes on the wire per byte of the run: {wire / total:.3f}")


def peer_fanin(broker, motion, count, name):
    """The peer of a fan-in: `count` mosquitto_pub of the file `motion` at once (QoS 1) to one
    mosquitto_sub. Returns what the subscriber printed (topic and length of each message), the
    elapsed time, the publishers' CPU and the broker's."""
    sub = spawn(["mosquitto_sub", "-p", str(broker.port), "-q", "1", "-t", "peer/fanin/#", "-C", str(count), "-F", "%t %l",
                 "-i", name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wait_until(lambda: broker.subscribed(name), 20, "the peer's subscriber")
    broker_cpu = cpu(broker.process.pid)
    began = time.monotonic()
    pubs = [spawn(["mosquitto_pub", "-p", str(broker.port), "-q", "1", "-t", f"peer/fanin/{i}", "-f", motion],
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(count)]
    printed, _ = sub.communicate(timeout=1800)
    elapsed = time.monotonic() - began
    usage = [os.wait4(p.pid, 0)[2] for p in pubs]
    return printed, elapsed, sum(u.ru_utime + u.ru_stime for u in usage), cpu(broker.process.pid) - broker_cpu


def fanin(count=50):
    broker = Broker("fanin")
    (task, name, folder), = runs(minute_data)
    per_run = size(folder)
    collected = f"{work}/fanin-collected"
    shutil.rmtree(collected, ignore_errors=True)
    collectors = [collector(broker, collected, share="bench", name=f"fanin-collector-{i}") for i in range(2)]
    before = [cpu(c.pid) for c in collectors] + [cpu(broker.process.pid)]
    datas = []
    for i in range(count):
        data = f"{work}/fanin/pi-{i}/data"
        shutil.rmtree(f"{work}/fanin/pi-{i}", ignore_errors=True)
        os.makedirs(f"{data}/runs/{task}")
        shutil.copytree(folder, f"{data}/runs/{task}/{name}")
        datas.append(data)
    began = time.monotonic()
    pis = [recorderd(f"{work}/fanin/pi-{i}", datas[i], broker, f"pi-{i}") for i in range(count)]
    wait_until(lambda: all(acknowledged(d, run_uuid(name)) for d in datas), 900, "the fan-in")
    elapsed = time.monotonic() - began
    pi_cpu = sum(cpu(p.pid) for p in pis)
    after = [cpu(c.pid) for c in collectors] + [cpu(broker.process.pid)]
    rss = sorted(memory(p.pid)["VmRSS"] for p in pis)
    for p in pis:
        stop(p)
    for c in collectors:
        stop(c)
    arrived = sorted(os.listdir(f"{collected}/bench"))
    exact = len(arrived) == count and all(sums(f"{collected}/bench/{d}/{task}/{name}") == sums(folder) for d in arrived)
    completed = [open(f"{work}/fanin-collector-{i}.log").read().count(", checked") for i in range(2)]
    done_lines = sum(completed)
    # The peer: 50 mosquitto_pub of the same motion file at once, to one mosquitto_sub.
    motion = f"{folder}/motion.jsonl"
    printed, peer_elapsed, peer_cpu, peer_broker = peer_fanin(broker, motion, count, "peer-fanin-sub")
    broker.stop()
    lengths = [int(line.split()[1]) for line in printed.decode().splitlines()]
    mb = count * per_run / 1e6
    peer_mb = count * os.path.getsize(motion) / 1e6
    print(f"\nfan-in: {count} recorderd, one {per_run / 1e6:.2f} MB run each, two collectors sharing ($share/bench): {len(arrived)} runs arrived, "
          f"each once and identical: {exact} ({done_lines} 'checked' lines); peer messages whole: {lengths.count(os.path.getsize(motion))}/{count}")
    print("| side | MB | elapsed (s) | MB/s | CPU s per MB: Pis / collectors / broker | RSS per recorderd (MiB, median) |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(f"| 50 recorderd → 2 collectors | {mb:.1f} | {elapsed:.2f} | {mb / elapsed:.1f} | {pi_cpu / mb:.4f} / "
          f"{(after[0] - before[0] + after[1] - before[1]) / mb:.4f} / {(after[2] - before[2]) / mb:.4f} | {rss[len(rss) // 2]:.1f} |")
    print(f"| peer: 50 mosquitto_pub → 1 mosquitto_sub | {peer_mb:.1f} | {peer_elapsed:.2f} | {peer_mb / peer_elapsed:.1f} | "
          f"{peer_cpu / peer_mb:.4f} (publishers) / — / {peer_broker / peer_mb:.4f} | |")
    print(f"the two collectors' CPU: {after[0] - before[0]:.2f} s and {after[1] - before[1]:.2f} s; runs each completed: {completed}")
    print(f"ratio (MB/s, recorderd's over the peer's; recorderd's time includes starting 50 daemons): {(mb / elapsed) / (peer_mb / peer_elapsed):.2f}")


def fanin200(count=200, sites=2):
    (task, name, folder), = runs(five_data)
    run = run_uuid(name)
    per_run = size(folder)
    motion = f"{folder}/motion.jsonl"
    expected = sums(folder)
    rows = []
    for label, version, shared in (("MQTT 5, 2 collectors sharing ($share)", "5", True), ("MQTT 3.1.1, 1 collector per site (--site)", "3.1.1", False)):
        key = "share" if shared else "site"
        broker = Broker(f"fanin200-{key}")
        root = f"{work}/fanin200-{key}"
        collected = f"{work}/fanin200-{key}-collected"
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(collected, ignore_errors=True)
        datas = []
        for i in range(count):
            data = f"{root}/pi-{i}/data"
            os.makedirs(f"{data}/fleet/outbox")
            # Each Pi's outbox holds the one run, pending (the run folder itself is shared: read only).
            with open(f"{data}/fleet/outbox/{run}.json", "w") as f:
                json.dump({"taskRunUUID": run, "taskIdentifier": task, "runDirectory": folder, "state": "pending",
                           "queued": "2026-11-29T00:00:00.000+00:00"}, f)
            datas.append(data)
        if shared:
            collectors = [collector(broker, collected, share="bench", name=f"fanin200-{key}-collector-{i}") for i in range(2)]
        else:
            collectors = [collector(broker, collected, name=f"fanin200-{key}-collector-{i}", extra=["--protocol", "3.1.1", "--site", f"site-{i}"])
                          for i in range(sites)]
        before = [cpu(c.pid) for c in collectors] + [cpu(broker.process.pid)]
        began = time.monotonic()
        pis = spawn([f"{bin_dir}/FanInPis", f"mqtt://127.0.0.1:{broker.port}", version, str(sites), str(count), root],
                    stdout=subprocess.DEVNULL, stderr=open(f"{root}/FanInPis.log", "w"))
        peaks = [0.0] * len(collectors)

        def done():
            for j, c in enumerate(collectors):
                peaks[j] = max(peaks[j], memory(c.pid)["VmRSS"])
            return all(acknowledged(d, run) for d in datas)
        wait_until(done, 1800, f"the fan-in of {count} ({label})")
        elapsed = time.monotonic() - began
        after = [cpu(c.pid) for c in collectors] + [cpu(broker.process.pid)]
        hwm = [memory(c.pid)["VmHWM"] for c in collectors]
        pis_cpu = cpu(pis.pid)
        stop(pis)
        for c in collectors:
            stop(c)
        broker.stop()
        arrived = [f"{collected}/site-{i % sites}/pi-{i}/{task}/{name}" for i in range(count)]
        exact = all(os.path.isdir(a) and sums(a) == expected for a in arrived)
        completed = [open(f"{work}/fanin200-{key}-collector-{j}.log").read().count(", checked") for j in range(len(collectors))]
        rows.append((label, elapsed, [a - b for a, b in zip(after[:-1], before[:-1])], after[-1] - before[-1], hwm, peaks, pis_cpu, exact, completed))
    # The peer: 200 mosquitto_pub of the same motion file at once, to one mosquitto_sub.
    broker = Broker("fanin200-peer")
    printed, peer_elapsed, peer_cpu, _ = peer_fanin(broker, motion, count, "peer-fanin200-sub")
    broker.stop()
    whole = [int(line.split()[1]) for line in printed.decode().splitlines()].count(os.path.getsize(motion))
    mb = count * per_run / 1e6
    peer_mb = count * os.path.getsize(motion) / 1e6
    print(f"\nfan-in of {count} simulated Pis ({sites} sites), one {per_run / 1e6:.2f} MB 5-minute run each, uploaded at once "
          f"(zstd chunks); peer messages whole: {whole}/{count}")
    print("| side | runs arrived identical | elapsed (s) | runs/s | MB/s (files) | collectors' CPU s (each) | CPU s per run: collectors / broker | "
          "collector RSS, MiB (peak seen / VmHWM, each) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, elapsed, ccpu, bcpu, hwm, peaks, pis_cpu, exact, completed in rows:
        print(f"| {count} Pis → {label} | {exact} ({sum(completed)} 'checked': {completed}) | {elapsed:.1f} | {count / elapsed:.2f} | {mb / elapsed:.1f} | "
              f"{' / '.join(f'{x:.1f}' for x in ccpu)} | {sum(ccpu) / count:.3f} / {bcpu / count:.3f} | "
              f"{' / '.join(f'{p:.1f}' for p in peaks)} / {' / '.join(f'{h:.1f}' for h in hwm)} |")
    print(f"| peer: {count} mosquitto_pub → 1 mosquitto_sub (the motion file, QoS 1) | {whole} whole | {peer_elapsed:.1f} | {count / peer_elapsed:.2f} | "
          f"{peer_mb / peer_elapsed:.1f} | — | {peer_cpu / count:.3f} (publishers) / — | — |")
    for label, elapsed, _, _, _, _, pis_cpu, _, _ in rows:
        print(f"ratio ({label}: runs/s over the peer's messages/s): {(count / elapsed) / (count / peer_elapsed):.2f}; "
              f"the simulated Pis' CPU: {pis_cpu:.1f} s ({pis_cpu / count:.3f} s per Pi)")


def outbox(count=1000):
    (task, name, folder), = runs(short_data)
    old = run_uuid(name)
    data = f"{work}/outbox/data"
    shutil.rmtree(f"{work}/outbox", ignore_errors=True)
    os.makedirs(f"{data}/runs/{task}")
    for _ in range(count):
        new = str(uuid.uuid4()).upper()
        target = f"{data}/runs/{task}/{name[:-36]}{new}"
        os.makedirs(target)
        for entry in os.listdir(folder):
            source = f"{folder}/{entry}"
            if os.path.isfile(source):
                with open(source, "rb") as f:
                    content = f.read()
                with open(f"{target}/{entry}", "wb") as f:
                    f.write(content.replace(old.encode(), new.encode()).replace(old.lower().encode(), new.lower().encode()))
    broker = Broker("outbox")
    results = {}
    for label, mqtt in (("without mqtt", False), ("with mqtt, 1,000 runs queued", True)):
        pi = recorderd(f"{work}/outbox/pi", data, broker, "pi-outbox", mqtt=mqtt)
        wait_until(lambda: os.path.exists(f"{work}/outbox/pi/control.sock"), 20, "recorderd")
        listed = subprocess.run([f"{bin_dir}/recorderctl", "runs", "--socket", f"{work}/outbox/pi/control.sock", "--json"],
                                capture_output=True, text=True)
        if mqtt:
            wait_until(lambda: os.path.isdir(f"{data}/fleet/outbox") and len(os.listdir(f"{data}/fleet/outbox")) >= count, 120, "1,000 queued runs")
            began = time.monotonic()
            status = subprocess.run([f"{bin_dir}/recorderctl", "status", "--socket", f"{work}/outbox/pi/control.sock"],
                                    capture_output=True, text=True)
            status_seconds = time.monotonic() - began
            queue_line = next((line for line in status.stdout.splitlines() if line.startswith("uploads:")), "")
        time.sleep(2)  # settle: a measurement interval, not a synchronisation
        results[label] = memory(pi.pid)
        stop(pi)
    broker.stop()
    outbox_bytes = size(f"{data}/fleet/outbox")
    print(f"\noutbox: {count} ended runs ({size(data + '/runs') / 1e6:.1f} MB), no collector; `recorderctl status` with the queue: "
          f"{status_seconds * 1000:.0f} ms ({queue_line.strip()}); outbox on disk {outbox_bytes / 1024:.0f} KiB")
    print("| recorderd | RSS (MiB) | peak RSS (MiB) |")
    print("| --- | --- | --- |")
    for label, m in results.items():
        print(f"| {label} | {m['VmRSS']:.1f} | {m['VmHWM']:.1f} |")


os.makedirs(work, exist_ok=True)
for part in parts:
    {"upload": upload, "fanin": fanin, "outbox": outbox, "fanin200": fanin200}[part]()
