#!/usr/bin/env python3
"""The SageResearch export's peer: Python's json and zipfile doing recorderctl's job on a motion
file — the records as one JSON array, deflated into a zip with the manifest.

    peer_sage.py RUN_DIRECTORY OUT.zip"""
import json
import os
import sys
import zipfile

run, out = sys.argv[1], sys.argv[2]
records = 0
with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
    with open(os.path.join(run, "motion.jsonl")) as f, z.open("motion.json", "w") as entry:
        entry.write(b"[\n")
        first = True
        for line in f:
            records += 1
            if not first:
                entry.write(b",\n")
            entry.write(json.dumps(json.loads(line), separators=(",", ":")).encode())
            first = False
        entry.write(b"\n]\n")
    z.write(os.path.join(run, "taskResult.json"), "taskResult.json")
print(records)
