#!/usr/bin/env python3
"""Reads an MCAP file with Foxglove's reader (PyPI mcap, zstandard) and prints what it found as
JSON, for the Swift tests to compare with the run's JSON lines:

    check_mcap.py FILE
    check_mcap.py --dump FILE   the file's content as text, one line per record (golden tests):
                                what does not depend on the compressor's output (no offsets,
                                lengths or CRCs of compressed data)

- every record through NonSeekingReader/StreamReader(validate_crcs=True): chunk CRCs and the
  data section's CRC in Data End; the footer's summary CRC recomputed here (zlib.crc32 over the
  summary through the footer's summary_offset_start, as the specification defines it);
- every message decoded as JSON, counted per topic, log times non-decreasing per channel;
- the seeking reader's summary: its statistics and chunk indexes.
Exits 1 with a message on any failure."""
import json
import sys

import zlib

from mcap.reader import NonSeekingReader, SeekingReader  # type: ignore
from mcap.records import DataEnd, Footer  # type: ignore
from mcap.stream_reader import StreamReader  # type: ignore


def main(path):
    out = {"topics": {}, "schemas": {}, "encodings": {}, "decreasing": [], "first": {}}
    last = {}
    with open(path, "rb") as f:
        reader = NonSeekingReader(f, validate_crcs=True)
        for schema, channel, message in reader.iter_messages():
            topic = channel.topic
            out["topics"][topic] = out["topics"].get(topic, 0) + 1
            out["schemas"][topic] = schema.name if schema else None
            out["encodings"][topic] = channel.message_encoding
            decoded = json.loads(message.data)
            out["first"].setdefault(topic, decoded)
            if message.log_time < last.get(channel.id, 0):
                out["decreasing"].append(topic)
            last[channel.id] = message.log_time
    with open(path, "rb") as f:
        # All records again, to see Data End's and the footer's CRC fields are set (not 0).
        for record in StreamReader(f, validate_crcs=True).records:
            if isinstance(record, DataEnd):
                out["dataSectionCrc"] = record.data_section_crc
            if isinstance(record, Footer):
                out["summaryCrc"] = record.summary_crc
                footer = record
    with open(path, "rb") as f:
        data = f.read()
    # The footer record: opcode, length, summary_start, summary_offset_start, summary_crc; magic.
    footer_start = len(data) - 8 - (1 + 8 + 8 + 8 + 4)
    covered = data[footer.summary_start:footer_start + 1 + 8 + 8 + 8]
    if zlib.crc32(covered) != footer.summary_crc:
        raise ValueError(f"summary CRC {footer.summary_crc:#x} != computed {zlib.crc32(covered):#x}")
    with open(path, "rb") as f:
        summary = SeekingReader(f, validate_crcs=True).get_summary()
        stats = summary.statistics
        out["statistics"] = {
            "messageCount": stats.message_count,
            "channelCount": stats.channel_count,
            "chunkCount": stats.chunk_count,
            "channelMessageCounts": {summary.channels[k].topic: v for k, v in stats.channel_message_counts.items()},
            "start": stats.message_start_time,
            "end": stats.message_end_time,
        }
        out["chunkIndexes"] = len(summary.chunk_indexes)
        out["compression"] = sorted({c.compression for c in summary.chunk_indexes})
    with open(path, "rb") as f:
        # The seeking reader's indexed read (chunk indexes, message indexes) finds every message.
        out["indexedMessages"] = sum(1 for _ in SeekingReader(f, validate_crcs=True).iter_messages())
    print(json.dumps(out))


def dump(path):
    lines = []
    with open(path, "rb") as f:
        for record in StreamReader(f, validate_crcs=True).records:
            name = type(record).__name__
            if name == "Header":
                lines.append(f"Header profile={record.profile!r} library={record.library!r}")
            elif name == "Schema":
                lines.append(f"Schema id={record.id} name={record.name} encoding={record.encoding} data={record.data.decode()}")
            elif name == "Channel":
                lines.append(f"Channel id={record.id} schema={record.schema_id} topic={record.topic} encoding={record.message_encoding} metadata={record.metadata}")
            elif name == "Message":
                lines.append(f"Message channel={record.channel_id} sequence={record.sequence} log_time={record.log_time} "
                             f"publish_time={record.publish_time} data={record.data.decode()}")
            elif name == "Statistics":
                lines.append(f"Statistics messages={record.message_count} schemas={record.schema_count} channels={record.channel_count} "
                             f"chunks={record.chunk_count} start={record.message_start_time} end={record.message_end_time} "
                             f"counts={dict(sorted(record.channel_message_counts.items()))}")
            elif name == "MessageIndex":
                lines.append(f"MessageIndex channel={record.channel_id} entries={len(record.records)}")
            elif name == "ChunkIndex":
                lines.append(f"ChunkIndex start={record.message_start_time} end={record.message_end_time} "
                             f"compression={record.compression} uncompressed={record.uncompressed_size} channels={sorted(record.message_index_offsets)}")
            else:
                lines.append(name)
    print("\n".join(lines))


if __name__ == "__main__":
    try:
        if sys.argv[1] == "--dump":
            dump(sys.argv[2])
            sys.exit(0)
        main(sys.argv[1])
    except Exception as error:  # noqa: BLE001 - every failure is the test's finding
        print(f"check_mcap: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
