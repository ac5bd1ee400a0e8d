#!/usr/bin/env python3
"""Decodes a PNG with Python's zlib alone (an independent reader: chunk CRCs, IHDR, IDAT
inflated and unfiltered) and prints JSON: width, height, and for each horizontal band of
BAND rows the fraction of pixels that are not the background (white), and the number of
distinct colours in the image.

    check_png.py FILE BAND"""
import json
import struct
import sys
import zlib


def main(path, band):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG signature")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            raise ValueError(f"bad CRC in {kind}")
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError(f"unexpected format depth={depth} colour={colour} interlace={interlace}")
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    previous = bytearray(stride)
    rows = []
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + previous[i]) & 0xFF
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = previous[i]
                c = previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        previous = line
    colours = set()
    bands = []
    for start in range(0, height, band):
        inked = total = 0
        for row in rows[start:start + band]:
            for x in range(0, stride, bpp):
                pixel = row[x:x + 3]
                total += 1
                if pixel != b"\xff\xff\xff":
                    inked += 1
                if len(colours) < 4096:
                    colours.add(pixel)
        bands.append(inked / max(1, total))
    print(json.dumps({"width": width, "height": height, "bands": bands, "colours": len(colours)}))


if __name__ == "__main__":
    try:
        main(sys.argv[1], int(sys.argv[2]))
    except Exception as error:  # noqa: BLE001
        print(f"check_png: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
