#!/usr/bin/env python3
"""Checks a MORK payload against MORK's published example: the same field names, the same JSON
types (log_line an integer, everything else strings, field_data objects of exactly data_value,
item_oid, date_time_entered), the required keys present and non-empty, dates as
yyyy-MM-dd'T'HH:mm:ss. Prints {"fields": [[item_oid, data_value, date_time_entered], ...]}.

usage: check_mork.py PAYLOAD EXAMPLE
"""
import json
import re
import sys

REQUIRED = ["subject_name", "study_uuid", "folder_oid", "form_oid", "log_line", "site_oid",
            "signature_date_time_entered", "field_data"]
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$")


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def main():
    payload = json.load(open(sys.argv[1]))
    example = json.load(open(sys.argv[2]))
    if list(payload) != ["form_data"] or list(example) != ["form_data"]:
        fail(f"top level: expected only form_data, found {list(payload)}")
    form, model = payload["form_data"], example["form_data"]
    for key in REQUIRED:
        if key not in form:
            fail(f"form_data.{key}: missing")
    for key, value in form.items():
        if key not in model:
            fail(f"form_data.{key}: not a key of MORK's example")
        if type(value) is not type(model[key]):
            fail(f"form_data.{key}: {type(value).__name__}, MORK's example has {type(model[key]).__name__}")
        if isinstance(value, str) and not value:
            fail(f"form_data.{key}: empty")
    if not DATE.match(form["signature_date_time_entered"]):
        fail(f"signature_date_time_entered: {form['signature_date_time_entered']!r} is not yyyy-MM-ddTHH:mm:ss")
    field_keys = list(model["field_data"][0])
    fields = []
    for i, field in enumerate(form["field_data"]):
        if sorted(field) != sorted(field_keys):
            fail(f"field_data[{i}]: keys {sorted(field)}, MORK's example has {sorted(field_keys)}")
        for key in field_keys:
            if not isinstance(field[key], str) or not field[key]:
                fail(f"field_data[{i}].{key}: expected a non-empty string, found {field[key]!r}")
        if not DATE.match(field["date_time_entered"]):
            fail(f"field_data[{i}].date_time_entered: {field['date_time_entered']!r}")
        fields.append([field["item_oid"], field["data_value"], field["date_time_entered"]])
    print(json.dumps({"fields": fields}))


if __name__ == "__main__":
    main()
