#!/usr/bin/env python3
"""Checks a FHIR export of a run against FHIR and against the run itself.

1. The Bundle validates with fhir.resources' R4B models (Bundle.model_validate), every entry too.
2. What fhir.resources does not check: fullUrls are unique urn:uuid:s, every reference points at
   an entry, the Bundle is a collection.
3. Every motion recording's SampledData equals its JSON lines read here with Python's json
   module: per sensor type and axis, the values in order, `E` once per sample lost at each gap
   record (droppedSamples), period 1000/frequency, dimensions 1, origin 0 in the file's unit.

Prints JSON: {"answers": [[path of linkIds, value[x] name, value], ...], "observations":
[[code, value or null, device name], ...], "sampled": {"<recorder>/<type>": points}}.

usage: check_fhir.py BUNDLE RUN_DIRECTORY
"""
import json
import math
import os
import sys

from fhir.resources.R4B.bundle import Bundle

AXES = {"attitude": ["x", "y", "z", "w"]}


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def main():
    bundle_path, run = sys.argv[1], sys.argv[2]
    raw = json.load(open(bundle_path))
    Bundle.model_validate(raw)
    if raw["type"] != "collection":
        fail(f"type: {raw['type']}")
    urls = [e["fullUrl"] for e in raw["entry"]]
    if len(set(urls)) != len(urls) or not all(u.startswith("urn:uuid:") for u in urls):
        fail(f"fullUrls: {urls}")
    by_url = {e["fullUrl"]: e["resource"] for e in raw["entry"]}

    def references(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "reference" and isinstance(v, str):
                    yield v
                else:
                    yield from references(v)
        elif isinstance(node, list):
            for v in node:
                yield from references(v)

    for ref in references(raw["entry"]):
        if ref.startswith("urn:uuid:") and ref not in by_url:
            fail(f"reference {ref} does not resolve inside the Bundle")

    def device_name(resource):
        ref = resource.get("device", {}).get("reference")
        device = by_url.get(ref, {})
        return (device.get("identifier") or [{}])[0].get("value") or device.get("deviceName", [{}])[0].get("name")

    manifest = json.load(open(os.path.join(run, "taskResult.json")))
    observations = [r for r in by_url.values() if r["resourceType"] == "Observation"]
    sampled = {}
    for result in manifest["asyncResults"]:
        if result.get("type") != "file" or not result["relativePath"].endswith(".jsonl"):
            continue
        expected = {}
        with open(os.path.join(run, result["relativePath"])) as f:
            for line in f:
                record = json.loads(line)
                kind = record.get("sensorType")
                if kind not in ("accelerometer", "gyro", "magnetometer", "attitude", "gravity", "userAcceleration",
                                "rotationRate", "magneticField"):
                    continue
                axes = AXES.get(kind, ["x", "y", "z"])
                if record.get("event") == "gap":
                    for series in expected.get(kind, {}).values():
                        series.extend(["E"] * record["droppedSamples"])
                elif "event" not in record:
                    series = expected.setdefault(kind, {a: [] for a in axes})
                    for a in axes:
                        series[a].append(record[a])
        for kind, series in expected.items():
            matches = [o for o in observations
                       if o["code"]["coding"][0]["code"] == kind and f"({result['identifier']})" in o["code"]["text"]
                       and device_name(o) == (result.get("device") or result["identifier"])]
            if len(matches) != 1:
                fail(f"{result['identifier']}/{kind}: {len(matches)} Observations")
            components = {c["code"]["coding"][0]["code"]: c["valueSampledData"] for c in matches[0]["component"]}
            for axis, values in series.items():
                data = components[f"{kind}-{axis}"]
                if data["dimensions"] != 1 or data["origin"]["value"] != 0:
                    fail(f"{kind}-{axis}: dimensions {data['dimensions']}, origin {data['origin']}")
                if not math.isclose(data["period"], 1000 / result["frequency"], rel_tol=1e-12):
                    fail(f"{kind}-{axis}: period {data['period']} for {result['frequency']} Hz")
                tokens = data["data"].split(" ")
                if len(tokens) != len(values):
                    fail(f"{result['identifier']}/{kind}-{axis}: {len(tokens)} points, the file has {len(values)}")
                for i, (token, value) in enumerate(zip(tokens, values)):
                    if value == "E":
                        if token != "E":
                            fail(f"{kind}-{axis}[{i}]: {token}, the file has a gap")
                    elif token == "E" or float(token) != value:
                        fail(f"{kind}-{axis}[{i}]: {token}, the file has {value!r}")
            sampled[f"{result['identifier']}/{kind}"] = len(next(iter(series.values())))

    answers = []

    def walk(items, path):
        for item in items:
            if "answer" in item:
                for answer in item["answer"]:
                    (name, value), = [(k, v) for k, v in answer.items() if k.startswith("value")]
                    answers.append([path + [item["linkId"]], name, value])
            walk(item.get("item", []), path + [item["linkId"]])

    responses = [r for r in by_url.values() if r["resourceType"] == "QuestionnaireResponse"]
    for r in responses:
        walk(r.get("item", []), [])
    subjects = sorted({r["subject"]["reference"] for r in by_url.values() if "subject" in r}
                      | {r["patient"]["reference"] for r in by_url.values() if "patient" in r})
    print(json.dumps({
        "answers": answers,
        "questionnaire": [r.get("questionnaire") for r in responses],
        "responseStatus": [r["status"] for r in responses],
        "observations": [[o["code"]["coding"][0]["code"], (o.get("valueQuantity") or {}).get("value"), device_name(o)] for o in observations],
        "sampled": sampled,
        "subjects": subjects,
        "resources": [r["resourceType"] for r in by_url.values()],
    }))


if __name__ == "__main__":
    main()
