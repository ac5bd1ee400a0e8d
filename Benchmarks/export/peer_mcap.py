#!/usr/bin/env python3
"""The MCAP export's peer: Foxglove's own Python writer (PyPI mcap, zstd chunks) doing
recorderctl's job on a motion file — a channel per sensor type, each record as a JSON message,
log time from the uptime.

    peer_mcap.py MOTION.jsonl OUT.mcap START_EPOCH_SECONDS START_UPTIME"""
import json
import sys

from mcap.writer import CompressionType, Writer  # type: ignore

start_epoch, start_uptime = float(sys.argv[3]), float(sys.argv[4])
records = 0
with open(sys.argv[1]) as f, open(sys.argv[2], "wb") as o:
    writer = Writer(o, compression=CompressionType.ZSTD)
    writer.start()
    schema = writer.register_schema(name="record", encoding="jsonschema", data=b'{"type":"object"}')
    channels = {}
    for line in f:
        r = json.loads(line)
        records += 1
        t = r.get("sensorType")
        if t is None:
            continue
        if t not in channels:
            channels[t] = writer.register_channel(topic=f"/imu0/{t}", message_encoding="json", schema_id=schema)
        log_time = int((start_epoch + r["uptime"] - start_uptime) * 1e9)
        writer.add_message(channels[t], log_time=log_time, data=json.dumps(r, separators=(",", ":")).encode(), publish_time=log_time)
    writer.finish()
print(records)
