#!/usr/bin/env python3
"""Runs PyPI ahrs' Mahony filter on the samples recorderd's MahonyFilter was given and compares
the attitudes sample by sample (Tests/MotionFusionTests/MahonyFilterTests.swift writes the input).

Input CSV (no header): gx,gy,gz (rad/s), ax,ay,az, mx,my,mz (0,0,0 without a magnetometer),
qw,qx,qy,qz (recorderd's attitude after that sample; row 0: the initial attitude).
recorderd's reference frame is North-West-Up, ahrs' MARG frame East-North-Up: with a magnetometer
ahrs' attitudes are turned by -90 degrees about up before comparing (and its initial one by +90).
Prints one JSON line: samples, the largest angle between the two attitudes in degrees, where.
"""
import json
import sys

import numpy as np
from ahrs.filters import Mahony
from ahrs.utils.metrics import qad


def hamilton(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def about_up(degrees):
    half = np.radians(degrees) / 2
    return np.array([np.cos(half), 0.0, 0.0, np.sin(half)])


def main():
    path, frequency, k_p, k_i = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
    data = np.loadtxt(path, delimiter=",", ndmin=2)
    gyr, acc, mag, ours = data[:, 0:3], data[:, 3:6], data[:, 6:9], data[:, 9:13]
    marg = bool(np.any(mag != 0))
    to_ours = about_up(-90) if marg else np.array([1.0, 0, 0, 0])
    q = hamilton(about_up(90), ours[0]) if marg else ours[0].copy()
    mahony = Mahony(frequency=frequency, k_P=k_p, k_I=k_i)
    worst, where = 0.0, 0
    for t in range(1, len(data)):
        q = mahony.updateMARG(q, gyr[t], acc[t], mag[t]) if marg else mahony.updateIMU(q, gyr[t], acc[t])
        angle = np.degrees(qad(hamilton(to_ours, q), ours[t]))
        if angle > worst:
            worst, where = angle, t
    print(json.dumps({"samples": len(data), "maxDegrees": worst, "at": where, "marg": marg}))


if __name__ == "__main__":
    main()
