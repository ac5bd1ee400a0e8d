#!/usr/bin/env python3
"""Parses an SVG with Python's XML parser and prints its structure as text, one line per
element tag with its count, after the root's width, height and viewBox: what a golden file of
a plot's structure compares (coordinates and glyph outlines left out).

    check_svg.py FILE"""
import collections
import sys
import xml.etree.ElementTree as ET


def main(path):
    root = ET.parse(path).getroot()
    def local(tag):
        return tag.split("}", 1)[-1]
    if local(root.tag) != "svg":
        raise ValueError(f"root element is {root.tag}")
    counts = collections.Counter(local(e.tag) for e in root.iter())
    print(f"svg width={root.get('width')} height={root.get('height')} viewBox={root.get('viewBox')}")
    for tag, n in sorted(counts.items()):
        print(f"{tag} {n}")


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except Exception as error:  # noqa: BLE001
        print(f"check_svg: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
