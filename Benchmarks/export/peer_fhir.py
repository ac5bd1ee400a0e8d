#!/usr/bin/env python3
"""The FHIR export's peer: Python's json module doing recorderctl's job on a run — one
Observation per motion sensor type with a SampledData component per axis (the values as
recorded, space separated, `E` for each sample lost at a gap record), in a collection Bundle
with the Device, written with json.dump.

    peer_fhir.py RUN_DIRECTORY OUT.json"""
import json
import os
import sys
import uuid

run, output = sys.argv[1], sys.argv[2]
manifest = json.load(open(os.path.join(run, "taskResult.json")))
AXES = {"attitude": "xyzw"}
MOTION = {"accelerometer", "gyro", "magnetometer", "attitude", "gravity", "userAcceleration", "rotationRate", "magneticField"}
UCUM = {"g": "[g]", "quaternion": "1"}
device_url = "urn:uuid:" + str(uuid.uuid4())
entries = [{"fullUrl": device_url, "resource": {"resourceType": "Device", "status": "active",
                                                "deviceName": [{"name": "imu0", "type": "user-friendly-name"}]}}]
for result in manifest["asyncResults"]:
    if result.get("type") != "file" or not result["relativePath"].endswith(".jsonl"):
        continue
    series = {}
    with open(os.path.join(run, result["relativePath"])) as f:
        for line in f:
            r = json.loads(line)
            kind = r.get("sensorType")
            if kind not in MOTION:
                continue
            axes = AXES.get(kind, "xyz")
            s = series.setdefault(kind, {a: [] for a in axes})
            if r.get("event") == "gap":
                for values in s.values():
                    values.extend(["E"] * r["droppedSamples"])
            elif "event" not in r:
                for a in axes:
                    s[a].append(repr(r[a]))
    for kind, s in series.items():
        unit = result["units"].get(kind, "")
        components = [{"code": {"coding": [{"system": "http://recorderd.example/fhir/CodeSystem/recorderd", "code": f"{kind}-{a}"}]},
                       "valueSampledData": {"origin": {"value": 0, "unit": unit, "system": "http://unitsofmeasure.org",
                                                       "code": UCUM.get(unit, unit)},
                                            "period": 1000 / (result.get("frequency") or 100), "dimensions": 1, "data": " ".join(v)}}
                      for a, v in s.items()]
        entries.append({"fullUrl": "urn:uuid:" + str(uuid.uuid4()), "resource": {
            "resourceType": "Observation", "status": "final",
            "category": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/observation-category", "code": "activity"}]}],
            "code": {"coding": [{"system": "http://recorderd.example/fhir/CodeSystem/recorderd", "code": kind}]},
            "effectivePeriod": {"start": result["startDate"], "end": result.get("endDate")},
            "device": {"reference": device_url}, "component": components}})
with open(output, "w") as o:
    json.dump({"resourceType": "Bundle", "type": "collection", "entry": entries}, o, separators=(",", ":"))
