#!/usr/bin/env python3
"""The export benchmark's input: a real walk (mobgap HA/001 daily living, lower back, 100 Hz;
accelerometer in g, gyroscope in deg/s) with a magnetometer column set added (µT: the Earth's
field, 48 µT at 66° dip, turned by the gyroscope's integrated yaw), as a replay device reads it.

    make_nine_axis.py WALK.csv OUT.csv"""
import csv
import math
import sys

walk, out = sys.argv[1], sys.argv[2]
with open(walk) as f, open(out, "w", newline="") as o:
    rows = csv.DictReader(f)
    w = csv.writer(o)
    w.writerow(["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z", "mag_x", "mag_y", "mag_z"])
    yaw = 0.0
    horizontal, vertical = 48 * math.cos(math.radians(66)), 48 * math.sin(math.radians(66))
    for r in rows:
        yaw += float(r["gyr_x"]) / 100 * math.pi / 180
        w.writerow([r["acc_x"], r["acc_y"], r["acc_z"], r["gyr_x"], r["gyr_y"], r["gyr_z"],
                    f"{-vertical:.4f}", f"{horizontal * math.cos(yaw):.4f}", f"{horizontal * math.sin(yaw):.4f}"])
