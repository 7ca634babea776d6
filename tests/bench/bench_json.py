"""Benchmarks of lossless JSON: the per-call cost of parsing, snapshotting and thawing arguments."""

from __future__ import annotations

import json

from tests.bench.harness import REFERENCE_ARGUMENTS, REFERENCE_TEXT, Case, reference_time, time_call
from toolfx.core.json import parse_json, snapshot_json, thaw_json

RECORDS: dict[str, object] = {
    "items": [
        {"id": i, "name": f"item{i}", "tags": ["a", "b"], "score": i * 0.5, "ok": i % 2 == 0}
        for i in range(100)
    ],
    "next": None,
}
"""A larger value: 100 small records (about 7 KB of JSON)."""

RECORDS_TEXT = json.dumps(RECORDS)


def run() -> list[Case]:
    """Time each JSON operation on the 5-property arguments, then on the 100 records."""
    arguments = REFERENCE_ARGUMENTS
    frozen_arguments = snapshot_json(arguments).unwrap()
    frozen_records = snapshot_json(RECORDS).unwrap()
    return [
        reference_time(),
        ("parse_json(5-property text)", time_call(lambda: parse_json(REFERENCE_TEXT))),
        ("snapshot_json(5-property dict)", time_call(lambda: snapshot_json(arguments))),
        ("thaw_json(5-property frozen)", time_call(lambda: thaw_json(frozen_arguments))),
        ("json.loads(100 records)", time_call(lambda: json.loads(RECORDS_TEXT))),
        ("parse_json(100 records)", time_call(lambda: parse_json(RECORDS_TEXT))),
        ("snapshot_json(100 records)", time_call(lambda: snapshot_json(RECORDS))),
        ("thaw_json(100 records)", time_call(lambda: thaw_json(frozen_records))),
    ]
