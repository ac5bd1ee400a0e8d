#!/usr/bin/env python3
"""Mobilise-D's turning detector (PyPI mobgap 1.2.0, TdElGohary with its defaults: the yaw rate
of the lower-back sensor's vertical axis, low-passed at 0.5 Hz, peaks over 15 deg/s bounded at
5 deg/s, 0.5-10 s, at least 45 deg) on every bundled trial: the peer of recorderd's turns
(TurnDetector; issue 46). The input as mobgap expects it (m/s^2 and deg/s, sensor frame renamed to
the body frame), as in mobgap_pipeline.py.

Run by scripts/gait-reference.sh, not by CI; its output is kept as a fixture
(Tests/Fixtures/imu/mobgap/mobgap_turns.json) that TurnAgreementTests compare recorderd's turns
with, as gpsd's .chk files are kept for its replays.

Usage: mobgap_turns.py FIXTURES_DIR OUTPUT.json
Writes {trial: [{"start": s, "end": s, "angle": deg}...]} (angle counter-clockwise positive, as
recorderd's: mobgap's angle_deg is signed by the body frame's vertical axis).
"""
import glob
import json
import os
import sys
import warnings

import pandas as pd
from mobgap.turning import TdElGohary
from mobgap.utils.conversions import to_body_frame

RATE = 100.0
STANDARD_GRAVITY = 9.80665


def main():
    warnings.filterwarnings("ignore")
    directory, output = sys.argv[1], sys.argv[2]
    results = {}
    for path in sorted(glob.glob(f"{directory}/*/*/*.csv")):
        trial = os.path.relpath(path, directory)[:-4]
        data = pd.read_csv(path)
        data[["acc_x", "acc_y", "acc_z"]] *= STANDARD_GRAVITY
        data = to_body_frame(data[["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z"]])
        turns = TdElGohary().detect(data, sampling_rate_hz=RATE).turn_list_
        results[trial] = [{"start": round(float(t.start) / RATE, 2), "end": round(float(t.end) / RATE, 2),
                           "angle": round(float(t.angle_deg), 1)} for t in turns.itertuples()]
        print(f"{trial}: {len(results[trial])} turns")
    with open(output, "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
