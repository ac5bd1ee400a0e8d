#!/usr/bin/env python3
"""Acceptance of the CSV export by its user (issue 14): mobgap 1.2.0's GsdIluz -> IcdIonescu on
the source walk (g, deg/s) and on recorderctl's CSV export of the same walk replayed through
recorderd (m/s², deg/s, read as a table: no conversion). The export starts where the recorder
started; its first row is found in the source by its values. Prints both lists of initial
contacts (seconds in the source) and exits 1 unless they are the same. (Values are compared
within 1e-9 relative: the gyroscope goes deg/s -> rad/s in recorderd and back in the export.)

    mobgap_on_csv.py SOURCE.csv EXPORTED_motion.csv"""
import sys
import warnings

import numpy as np
import pandas as pd
from mobgap.gait_sequences import GsdIluz
from mobgap.initial_contacts import IcdIonescu
from mobgap.pipeline import iter_gs
from mobgap.utils.conversions import to_body_frame

RATE = 100.0
G = 9.80665
COLUMNS = ["acc_x", "acc_y", "acc_z", "gyr_x", "gyr_y", "gyr_z"]


def contacts(data):
    data = to_body_frame(data[COLUMNS].reset_index(drop=True))
    found = []
    for sequence, sequence_data in iter_gs(data, GsdIluz().detect(data, sampling_rate_hz=RATE).gs_list_):
        ics = IcdIonescu().detect(sequence_data, sampling_rate_hz=RATE).ic_list_
        found += [int(sequence.start + i) for i in ics["ic"]]
    return found


def main(source_path, export_path):
    warnings.filterwarnings("ignore")
    source = pd.read_csv(source_path, float_precision="round_trip")
    source[["acc_x", "acc_y", "acc_z"]] *= G
    exported = pd.read_csv(export_path, float_precision="round_trip")
    if exported[COLUMNS].isna().any().any():
        raise SystemExit("the export has empty cells (gaps): not a continuous walk")
    # Where the export starts in the source: the row whose six values it repeats exactly.
    first = exported[COLUMNS].iloc[0].to_numpy()
    matches = np.where(np.isclose(source[COLUMNS].to_numpy(), first, rtol=1e-9, atol=1e-12).all(axis=1))[0]
    if len(matches) != 1:
        raise SystemExit(f"the export's first row is found {len(matches)} times in the source")
    offset = int(matches[0])
    n = min(len(exported), len(source) - offset)
    same = np.allclose(source[COLUMNS].iloc[offset:offset + n].to_numpy(), exported[COLUMNS].iloc[:n].to_numpy(), rtol=1e-9, atol=1e-12)
    ours = [(offset + i) / RATE for i in contacts(exported.iloc[:n])]
    theirs = [i / RATE for i in contacts(source.iloc[offset:offset + n])]
    theirs = [t + offset / RATE for t in theirs]
    print(f"export: {len(exported)} rows from source row {offset}; values equal to the source's: {same}")
    print(f"mobgap on the source CSV:   {len(theirs)} initial contacts {theirs}")
    print(f"mobgap on the exported CSV: {len(ours)} initial contacts {ours}")
    if not same or ours != theirs:
        raise SystemExit("different")
    print("same initial contacts")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
