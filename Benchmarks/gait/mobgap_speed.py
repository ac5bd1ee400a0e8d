#!/usr/bin/env python3
"""Mobilise-D's stride length and walking speed (PyPI mobgap 1.2.0) on the INDIP reference bouts:
in each reference bout, IcdIonescu (initial contacts) -> CadFromIc (cadence per second) ->
SlZijlstra (stride length per second, with the trial's sensor height and mobgap's default
scaling) -> WsNaive (speed = stride length x cadence / 120), each bout's values the mean of its
seconds. The input as mobgap expects it (m/s^2 and deg/s, x up, sensor frame renamed to the body
frame), as in mobgap_pipeline.py.

The peer of recorderd's walking speed (issue 46); run by scripts/gait-reference.sh, not by CI.

Usage: mobgap_speed.py FIXTURES_DIR OUTPUT.json
Writes {trial: [{"start": sample, "end": sample, "strideLength": m, "walkingSpeed": m/s}...]} for
every reference bout of reference_walking_bouts.json, and prints each tool's mean absolute error
against INDIP.
"""
import json
import sys
import time
import warnings

import numpy as np
import pandas as pd
from mobgap.cadence import CadFromIc
from mobgap.initial_contacts import IcdIonescu
from mobgap.stride_length import SlZijlstra
from mobgap.utils.conversions import to_body_frame
from mobgap.walking_speed import WsNaive

RATE = 100.0
STANDARD_GRAVITY = 9.80665


def bout_measures(data, sensor_height):
    ics = IcdIonescu().detect(data, sampling_rate_hz=RATE).ic_list_
    if len(ics) < 2:
        return None, None
    cadence = CadFromIc().calculate(data, initial_contacts=ics, sampling_rate_hz=RATE).cadence_per_sec_
    stride = SlZijlstra().calculate(data, initial_contacts=ics, sensor_height_m=sensor_height,
                                    sampling_rate_hz=RATE).stride_length_per_sec_
    speed = WsNaive().calculate(data, initial_contacts=ics, cadence_per_sec=cadence, stride_length_per_sec=stride,
                                sampling_rate_hz=RATE).walking_speed_per_sec_
    length = float(np.nanmean(stride["stride_length_m"]))
    velocity = float(np.nanmean(speed["walking_speed_mps"]))
    return (None if np.isnan(length) else length), (None if np.isnan(velocity) else velocity)


def main():
    warnings.filterwarnings("ignore")
    directory, output = sys.argv[1], sys.argv[2]
    with open(f"{directory}/reference_walking_bouts.json") as f:
        reference = json.load(f)
    results = {}
    errors = {"strideLength": [], "walkingSpeed": []}
    seconds, samples = 0.0, 0
    for trial, ref in reference.items():
        if not ref["bouts"]:
            continue
        data = pd.read_csv(f"{directory}/{trial}.csv")
        data[["acc_x", "acc_y", "acc_z"]] *= STANDARD_GRAVITY
        data = to_body_frame(data[["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z"]])
        results[trial] = []
        for bout in ref["bouts"]:
            segment = data.iloc[bout["start"]:bout["end"] + 1].reset_index(drop=True)
            started = time.process_time()
            stride, speed = bout_measures(segment, ref["sensorHeightMeters"])
            seconds += time.process_time() - started
            samples += len(segment)
            results[trial].append({"start": bout["start"], "end": bout["end"], "strideLength": stride, "walkingSpeed": speed})
            if stride is not None:
                errors["strideLength"].append(abs(stride - bout["strideLength"]))
            if speed is not None:
                errors["walkingSpeed"].append(abs(speed - bout["walkingSpeed"]))
    with open(output, "w") as f:
        json.dump(results, f, indent=1)
    print(f"gait-speed mobgap: stride length MAE {np.mean(errors['strideLength']):.3f} m over {len(errors['strideLength'])} bouts, "
          f"walking speed MAE {np.mean(errors['walkingSpeed']):.3f} m/s over {len(errors['walkingSpeed'])} bouts, "
          f"{seconds / max(samples, 1) * 1e9:.0f} ns of CPU per sample")


if __name__ == "__main__":
    main()
