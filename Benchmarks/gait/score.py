#!/usr/bin/env python3
"""Scores detected initial contacts against the INDIP reference of the mobgap walks: a detected
contact within +-0.25 s of a reference one is a hit (each matched once, closest first).

Usage: score.py REFERENCE.json [--sides REFERENCE_SIDES.json] NAME=DETECTIONS.json ...
DETECTIONS.json: {trial: {"initialContacts": [s...]}} (mobgap_pipeline.py's output, or
recorderd's). Prints, per trial with reference bouts and per detector: reference steps, detected,
hits, recall, precision, |detected - reference|, extras inside the reference bouts (detections
within a bout, +-0.25 s, that match no reference contact: the reference only marks steps inside
its bouts, and a straight walk goes on beyond them), and the cadence error (steps/min; each reference
bout's cadence against 60 (n-1) / (last - first) of the contacts detected within it, +-0.25 s).
With --sides: for each reference contact with a side, the detector's nearest contact within
+-0.25 s that has a side ("sides" in DETECTIONS.json) is scored: matched, of them correct.
"""
import json
import sys

TOLERANCE = 0.25


def score(reference, detected):
    contacts = [x for bout in reference["walking_bouts"] for x in bout["initial_contacts_s"] if x == x]
    found = sorted(detected)
    pairs = sorted((abs(d - r), i, j) for i, r in enumerate(contacts) for j, d in enumerate(found) if abs(d - r) <= TOLERANCE)
    matched_reference, matched_detected = set(), set()
    for _, i, j in pairs:
        if i not in matched_reference and j not in matched_detected:
            matched_reference.add(i)
            matched_detected.add(j)
    hits = len(matched_reference)
    inside_bouts = [j for j, d in enumerate(found)
                    if any(b["start_s"] - TOLERANCE <= d <= b["end_s"] + TOLERANCE for b in reference["walking_bouts"])]
    extra_in_bouts = len([j for j in inside_bouts if j not in matched_detected])
    errors = []
    for bout in reference["walking_bouts"]:
        inside = [d for d in found if bout["start_s"] - TOLERANCE <= d <= bout["end_s"] + TOLERANCE]
        cadence = 60 * (len(inside) - 1) / (inside[-1] - inside[0]) if len(inside) >= 2 else 0.0
        errors.append(abs(cadence - bout["cadence_steps_per_min"]))
    return {"reference": len(contacts), "detected": len(found), "hits": hits,
            "recall": hits / len(contacts), "precision": hits / len(found) if found else 0.0,
            "countError": abs(len(found) - len(contacts)), "extraInBouts": extra_in_bouts,
            "cadenceError": sum(errors) / len(errors)}


def score_sides(reference, detected):
    matched = correct = 0
    for time, side in reference:
        near = [(abs(t - time), s) for t, s in detected if s is not None and abs(t - time) <= TOLERANCE]
        if near:
            matched += 1
            correct += min(near)[1] == side
    return matched, correct


def main():
    with open(sys.argv[1]) as f:
        reference = json.load(f)
    arguments = sys.argv[2:]
    sides = None
    if arguments[:1] == ["--sides"]:
        with open(arguments[1]) as f:
            sides = json.load(f)
        arguments = arguments[2:]
    detectors = {}
    for argument in arguments:
        name, path = argument.split("=", 1)
        with open(path) as f:
            detectors[name] = json.load(f)
    print("| trial | detector | reference | detected | hits | recall | precision | count error | extra in bouts | cadence error (steps/min) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for trial, truth in reference.items():
        if not truth["walking_bouts"]:
            continue
        for name, results in detectors.items():
            s = score(truth, results[trial]["initialContacts"])
            print(f"| {trial} | {name} | {s['reference']} | {s['detected']} | {s['hits']} | {s['recall']:.3f} | "
                  f"{s['precision']:.3f} | {s['countError']} | {s['extraInBouts']} | {s['cadenceError']:.1f} |")

    if sides is None:
        return
    print()
    print("| trial | detector | reference sides | matched | correct | accuracy |")
    print("| --- | --- | --- | --- | --- | --- |")
    totals = {}
    for trial, truth in sides.items():
        for name, results in detectors.items():
            matched, correct = score_sides(truth, results[trial].get("sides", []))
            total = totals.setdefault(name, [0, 0, 0])
            total[0] += len(truth)
            total[1] += matched
            total[2] += correct
            print(f"| {trial} | {name} | {len(truth)} | {matched} | {correct} | {correct / matched if matched else 0:.3f} |")
    for name, (n, matched, correct) in totals.items():
        print(f"| all | {name} | {n} | {matched} | {correct} | {correct / matched if matched else 0:.3f} |")


if __name__ == "__main__":
    main()
