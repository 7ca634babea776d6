"""The record sink: where the durable `tool/call` and `tool/result` events go, and its faults.

A sink that raises (a full disk, a closed file) never loses a result and never ends a batch: the
pipeline reports the fault through `Runtime.report` and goes on. A call whose `tool/call` record
the sink refused is not run (nothing unrecorded happens) and gets no `tool/result` record (the
log holds no result without its call); a call whose `tool/call` was taken always has its
`tool/result` attempted, so the records stay paired whenever the sink works at all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import final

from toolfx.core.records import SessionRecord
from toolfx.core.runtime import Runtime

__all__ = ["RecordFault", "RecordSink", "write_record"]

RecordSink = Callable[[SessionRecord], None]
"""Receives the durable events: `tool/call` before a call runs, `tool/result` after."""


@final
@dataclass(frozen=True, slots=True)
class RecordFault:
    """A record the sink failed to take, and the exception it raised."""

    record: SessionRecord
    error: Exception


def write_record(runtime: Runtime, sink: RecordSink, record: SessionRecord) -> Exception | None:
    """Give `record` to `sink`; an exception it raises is reported to the runtime and returned."""
    try:
        sink(record)
    except Exception as error:  # contained: a broken log must not lose or change a result
        runtime.report(error, f"the record sink, taking the `{record.event}` of {record.call_id}")
        return error
    return None
