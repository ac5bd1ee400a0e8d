#!/usr/bin/env python3
"""A run directory of N samples of a 9-axis motion recorder (3 records a sample, full-precision
numbers as recorderd writes them), for instruction counts:

    make_run.py DIRECTORY SAMPLES"""
import json
import math
import os
import sys

directory, samples = sys.argv[1], int(sys.argv[2])
os.makedirs(directory, exist_ok=True)
t0 = 49494.329802899
with open(os.path.join(directory, "motion.jsonl"), "w") as f:
    f.write(json.dumps({"uptime": t0, "timestamp": 0, "timestampDate": "2026-11-23T08:38:11.625+00:00", "stepPath": "hour/record"},
                       separators=(",", ":")) + "\n")
    for i in range(samples):
        u = t0 + i / 100
        for k, (kind, scale) in enumerate((("accelerometer", 1.0), ("gyro", 2.5), ("magnetometer", 40.0))):
            x, y, z = (scale * math.sin(0.37 * i + k + a) for a in (0.0, 1.1, 2.3))
            f.write(json.dumps({"uptime": u, "timestamp": u - t0, "stepPath": "hour/record", "sensorType": kind, "x": x, "y": y, "z": z},
                               separators=(",", ":")) + "\n")
manifest = {"taskIdentifier": "hour", "taskRunUUID": "29B137B2-63C0-42E8-ACB7-B4BFBCFDF467", "startDate": "2026-11-23T08:38:11.625+00:00",
            "status": "finished", "endDate": "2026-11-23T09:38:11.625+00:00", "stepHistory": [],
            "asyncResults": [{"type": "file", "identifier": "motion", "relativePath": "motion.jsonl", "contentType": "application/x-ndjson",
                              "device": "imu0", "startDate": "2026-11-23T08:38:11.625+00:00", "startUptime": t0, "sampleCount": 3 * samples,
                              "droppedSamples": 0, "gapCount": 0, "units": {"accelerometer": "g", "gyro": "rad/s", "magnetometer": "uT"}}]}
with open(os.path.join(directory, "taskResult.json"), "w") as f:
    json.dump(manifest, f)
