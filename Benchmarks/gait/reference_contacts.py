#!/usr/bin/env python3
"""What a perfect contact detector would score on issue 46's two bars: INDIP's own initial
contacts taken as a detector's.

1. Writes them as detections (OUTPUT.json, {trial: {"initialContacts": [s...]}}) for score.py,
   whose cadence error (each reference bout's cadence against 60 (n - 1) / (last - first) of the
   contacts within it) is the issue's daily-living bar: score.py scores them beside mobgap's and
   recorderd's (scripts/gait-reference.sh).
2. Prints Mobilise-D's stride length and walking speed (PyPI mobgap 1.2.0: CadFromIc ->
   SlZijlstra, with the trial's sensor height and mobgap's default scaling -> WsNaive, as in
   mobgap_speed.py) on each straight walk's reference bout from INDIP's contacts instead of
   mobgap's own, against INDIP's — the issue's 0.05 m/s bar for Zijlstra & Hof's model with
   every contact exactly where the reference puts it.

Usage: reference_contacts.py FIXTURES_DIR OUTPUT.json
"""
import json
import sys
import warnings

import numpy as np
import pandas as pd
from mobgap.cadence import CadFromIc
from mobgap.stride_length import SlZijlstra
from mobgap.utils.conversions import to_body_frame
from mobgap.walking_speed import WsNaive

RATE = 100.0
STANDARD_GRAVITY = 9.80665


def main():
    warnings.filterwarnings("ignore")
    directory, output = sys.argv[1], sys.argv[2]
    with open(f"{directory}/reference_initial_contacts.json") as f:
        contacts = json.load(f)
    with open(f"{directory}/reference_walking_bouts.json") as f:
        bouts = json.load(f)
    detections = {trial: {"initialContacts": [c for bout in ref["walking_bouts"] for c in bout["initial_contacts_s"] if c == c]}
                  for trial, ref in contacts.items()}
    with open(output, "w") as f:
        json.dump(detections, f, indent=1)
    for trial, ref in bouts.items():
        if "Test5" not in trial or not ref["bouts"]:
            continue
        data = pd.read_csv(f"{directory}/{trial}.csv")
        data[["acc_x", "acc_y", "acc_z"]] *= STANDARD_GRAVITY
        data = to_body_frame(data[["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z"]])
        bout = ref["bouts"][0]
        segment = data.iloc[bout["start"]:bout["end"] + 1].reset_index(drop=True)
        samples = np.round(np.array(detections[trial]["initialContacts"]) * RATE).astype(int)
        samples = samples[(samples >= bout["start"]) & (samples <= bout["end"])] - bout["start"]
        ics = pd.DataFrame({"ic": samples})
        cadence = CadFromIc().calculate(segment, initial_contacts=ics, sampling_rate_hz=RATE).cadence_per_sec_
        stride = SlZijlstra().calculate(segment, initial_contacts=ics, sensor_height_m=ref["sensorHeightMeters"],
                                        sampling_rate_hz=RATE).stride_length_per_sec_
        speed = WsNaive().calculate(segment, initial_contacts=ics, cadence_per_sec=cadence, stride_length_per_sec=stride,
                                    sampling_rate_hz=RATE).walking_speed_per_sec_
        length, velocity = float(np.nanmean(stride["stride_length_m"])), float(np.nanmean(speed["walking_speed_mps"]))
        print(f"gait-reference-contacts {trial}: {len(samples)} INDIP contacts -> SlZijlstra stride {length:.3f} m "
              f"(INDIP {bout['strideLength']:.3f}, {100 * (length / bout['strideLength'] - 1):+.1f} %), WsNaive speed {velocity:.3f} m/s "
              f"(INDIP {bout['walkingSpeed']:.3f}, {velocity - bout['walkingSpeed']:+.3f})")


if __name__ == "__main__":
    main()
