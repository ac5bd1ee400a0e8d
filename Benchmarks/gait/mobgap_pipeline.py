#!/usr/bin/env python3
"""Mobilise-D's reference pipeline (PyPI mobgap 1.2.0) on the lower-back walks: GsdIluz (gait
sequences) -> IcdIonescu (initial contacts in each sequence) -> CadFromIc (cadence), with the
input as mobgap expects it (m/s^2 and deg/s, x up, sensor frame renamed to the body frame).

The peer of recorderd's gait analysis (issue 13); run by scripts/gait-reference.sh, not by CI.
(Importing mobgap.pipeline loads the laterality model, pickled with another scikit-learn: its
InconsistentVersionWarning concerns that model, which this pipeline does not use.)

Usage: mobgap_pipeline.py FIXTURES_DIR OUTPUT.json
Writes {trial: {"initialContacts": [s...], "gaitSequences": [[start_s, end_s]...],
"cadence": [steps/min per sequence], "sides": [[s, "left"|"right"]...]}} for every trial of
reference_initial_contacts.json; the sides are LrcMcCamley's (its defaults: yaw and roll combined,
band-passed 0.5-2 Hz) on each sequence's contacts.
"""
import json
import sys
import time
import warnings

import numpy as np
import pandas as pd
from mobgap.cadence import CadFromIc
from mobgap.gait_sequences import GsdIluz
from mobgap.initial_contacts import IcdIonescu
from mobgap.laterality import LrcMcCamley
from mobgap.pipeline import iter_gs
from mobgap.utils.conversions import to_body_frame

RATE = 100.0
STANDARD_GRAVITY = 9.80665


def run(directory, trial):
    data = pd.read_csv(f"{directory}/{trial}.csv")
    data[["acc_x", "acc_y", "acc_z"]] *= STANDARD_GRAVITY
    data = to_body_frame(data[["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z"]])
    sequences = GsdIluz().detect(data, sampling_rate_hz=RATE).gs_list_
    contacts, bounds, cadences, sides = [], [], [], []
    for sequence, sequence_data in iter_gs(data, sequences):
        ics = IcdIonescu().detect(sequence_data, sampling_rate_hz=RATE).ic_list_
        contacts += [(sequence.start + int(i)) / RATE for i in ics["ic"]]
        if len(ics):
            labels = LrcMcCamley().predict(sequence_data, ics, sampling_rate_hz=RATE).ic_lr_list_
            sides += [[(sequence.start + int(i)) / RATE, label] for i, label in zip(labels["ic"], labels["lr_label"])]
        bounds.append([int(sequence.start) / RATE, int(sequence.end) / RATE])
        if len(ics) >= 2:
            per_second = CadFromIc().calculate(sequence_data, initial_contacts=ics, sampling_rate_hz=RATE).cadence_per_sec_
            cadences.append(float(np.nanmean(per_second["cadence_spm"])))
        else:
            cadences.append(None)
    return {"initialContacts": contacts, "gaitSequences": bounds, "cadence": cadences, "sides": sides}


def main():
    warnings.filterwarnings("ignore")
    directory, output = sys.argv[1], sys.argv[2]
    with open(f"{directory}/reference_initial_contacts.json") as f:
        trials = list(json.load(f))
    results = {}
    samples, seconds = 0, 0.0
    for trial in trials:
        started = time.process_time()
        results[trial] = run(directory, trial)
        seconds += time.process_time() - started
        with open(f"{directory}/{trial}.csv") as f:
            samples += sum(1 for _ in f) - 1
    with open(output, "w") as f:
        json.dump(results, f, indent=1)
    # The peer's cost, for the benchmark's ratio (reading the CSV included; imports excluded).
    print(f"gait mobgap: {seconds / samples * 1e9:.0f} ns of CPU per sample (GsdIluz + IcdIonescu + CadFromIc + LrcMcCamley, {samples} samples)")


if __name__ == "__main__":
    main()
