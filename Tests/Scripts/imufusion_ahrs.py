#!/usr/bin/env python3
"""Runs x-io's Fusion AHRS (PyPI imufusion) with its recommended settings on the samples
recorderd recorded, for Tests/IIOSensorsTests/DeviceMotionPhysicsTests.swift to judge both against
the same known trajectory.

Recommended settings (imufusion's README): gain 0.5, the gyroscope's range from its datasheet,
acceleration and magnetic rejection 10 degrees, rejection timeout 5 s, North-West-Up, and the
gyroscope bias algorithm (default settings) applied before the AHRS.

Usage: imufusion_ahrs.py INPUT OUTPUT RATE GYRO_RANGE_DPS
INPUT CSV (no header): dt (s, 0 on the first row), gx,gy,gz (rad/s), ax,ay,az (g), and either
mx,my,mz (uT) or nothing (no magnetometer). Prints one line per sample: qw,qx,qy,qz (device to
North-West-Up).
"""
import sys

import numpy as np
import imufusion


def main():
    path, output, rate, gyro_range = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    rows = np.loadtxt(path, delimiter=",", ndmin=2)
    has_magnetometer = rows.shape[1] >= 10
    ahrs = imufusion.Ahrs()
    ahrs.set_settings(imufusion.AhrsSettings(sample_rate=rate, convention=imufusion.CONVENTION_NWU, gain=0.5,
                                             gyroscope_range=gyro_range, acceleration_rejection=10,
                                             magnetic_rejection=10, rejection_timeout=5))
    bias = imufusion.Bias()
    bias.set_settings(imufusion.BiasSettings(sample_rate=rate))
    out = []
    for row in rows:
        dt = row[0]
        if dt > 0:
            ahrs.set_sample_period(dt)
        gyro = bias.update(np.ascontiguousarray(np.degrees(row[1:4])))
        accelerometer = np.ascontiguousarray(row[4:7])
        if has_magnetometer:
            ahrs.update(gyro, accelerometer, np.ascontiguousarray(row[7:10]))
        else:
            ahrs.update_no_magnetometer(gyro, accelerometer)
        q = ahrs.get_quaternion()
        out.append("%.12g,%.12g,%.12g,%.12g" % (q[0], q[1], q[2], q[3]))
    with open(output, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
