#!/usr/bin/env python3
"""The CSV export's peer: Python's json and csv modules doing recorderctl's job on a motion
file — one row per sample (the accelerometer, gyroscope and magnetometer records of one uptime
joined), SI units (m/s², deg/s, µT), time from the first uptime.

    peer_csv.py MOTION.jsonl OUT.csv"""
import csv
import json
import math
import sys

G, DEG = 9.80665, 180 / math.pi
COLUMNS = {"accelerometer": ("acc", G), "gyro": ("gyr", DEG), "magnetometer": ("mag", 1.0)}
ORDER = ["accelerometer", "gyro", "magnetometer"]
records = 0
with open(sys.argv[1]) as f, open(sys.argv[2], "w", newline="") as o:
    out = csv.writer(o)
    out.writerow(["time", "uptime", "stepPath"] + [f"{COLUMNS[t][0]}_{a}" for t in ORDER for a in "xyz"])
    zero, row, uptime, path = None, {}, None, None

    def flush():
        if uptime is not None:
            cells = []
            for t in ORDER:
                v = row.get(t)
                cells += [v[0], v[1], v[2]] if v else ["", "", ""]
            out.writerow([uptime - zero, uptime, path] + cells)

    for line in f:
        r = json.loads(line)
        records += 1
        if zero is None:
            zero = r["uptime"]
        t = r.get("sensorType")
        if t not in COLUMNS or "event" in r:
            continue
        if r["uptime"] != uptime or t in row:
            flush()
            row, uptime, path = {}, r["uptime"], r.get("stepPath")
        s = COLUMNS[t][1]
        row[t] = (r["x"] * s, r["y"] * s, r["z"] * s)
    flush()
print(records)
