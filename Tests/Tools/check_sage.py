#!/usr/bin/env python3
"""Opens a SageResearch upload archive with Python's zipfile (an independent reader), checks every
entry's CRC, extracts it, and reports its structure as JSON:

    check_sage.py ARCHIVE OUTDIR

For each .json entry that is an array (a recorder's file): its length, whether its first element
is a step marker (uptime, timestamp, stepPath, timestampDate and no sensorType) and the set of
keys used. Exits 1 with a message on any failure."""
import json
import sys
import zipfile


def main(path, outdir):
    with zipfile.ZipFile(path) as archive:
        bad = archive.testzip()
        if bad is not None:
            raise ValueError(f"CRC mismatch in {bad}")
        names = archive.namelist()
        if len(names) != len(set(names)):
            raise ValueError("duplicate entries")
        archive.extractall(outdir)
        out = {"entries": names, "arrays": {}, "compression": sorted({i.compress_type for i in archive.infolist()})}
        for name in names:
            if not name.endswith(".json"):
                continue
            value = json.loads(archive.read(name))
            if isinstance(value, list):
                first = value[0] if value else {}
                out["arrays"][name] = {
                    "count": len(value),
                    "markerFirst": all(k in first for k in ("uptime", "timestamp", "stepPath", "timestampDate")) and "sensorType" not in first,
                    "keys": sorted({k for element in value for k in element}),
                }
    print(json.dumps(out))


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2])
    except Exception as error:  # noqa: BLE001 - every failure is the test's finding
        print(f"check_sage: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
