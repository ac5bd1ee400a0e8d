"""Reads a zip archive with Python's zipfile (an independent reader of what recorderd writes):
checks every entry's CRC (testzip) and prints, one JSON object per line, each entry's name,
size, compression method, DOS date_time, directory flag and the SHA-256 of its content.

    python3 read_zip.py ARCHIVE
"""
import hashlib
import json
import sys
import zipfile

with zipfile.ZipFile(sys.argv[1]) as archive:
    bad = archive.testzip()
    if bad is not None:
        print(f"bad CRC: {bad}", file=sys.stderr)
        sys.exit(1)
    for info in archive.infolist():
        content = archive.read(info)
        print(json.dumps({
            "name": info.filename,
            "size": info.file_size,
            "method": info.compress_type,
            "dateTime": list(info.date_time),
            "directory": info.is_dir(),
            "sha256": hashlib.sha256(content).hexdigest(),
            "mode": (info.external_attr >> 16) & 0o777,
        }))
