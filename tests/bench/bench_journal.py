"""Benchmarks of the journal: what committing a call's records to a SqliteJournal costs per call.

The journaled call is one trivial call run by a `JournaledSession` over a SqliteJournal under the
sync interpreter: looked up in the recovery state, its `tool/call` (with its arguments' hash) and
its `tool/result` each committed before the pipeline goes on; the plain call is the same call by
`execute_batch` without a sink. Every call gets a fresh id, as a journaled run's calls do. The raw
cost of a `tool/call` + `tool/result` pair of appends is measured beside it, at both
durabilities.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Callable
from pathlib import Path

from tests.bench.bench_pipeline import plain_location
from tests.bench.harness import Case, time_call
from toolfx.core.journal import Journal, JournaledSession
from toolfx.core.pipeline import ToolCall, execute_batch
from toolfx.core.records import ToolCallRecord, ToolResultRecord
from toolfx.core.registry import Catalog
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import DurableResult, TextBlock
from toolfx.interpreters.journal import Durability, SqliteJournal
from toolfx.interpreters.sync import SyncRuntime, run_sync

ARGUMENTS = {"a": 1, "b": 2}


def calls(catalog: Catalog, runtime: SyncRuntime, journal: Journal | None) -> Callable[[], object]:
    """Run one call with a fresh id, journaled when a journal is given."""
    ids = itertools.count()
    session = None if journal is None else JournaledSession(journal)

    def one() -> object:
        call = ToolCall(f"c{next(ids)}", "add", ARGUMENTS, CancelSignal())
        if session is None:
            return run_sync(execute_batch(catalog, [call]), runtime)
        return run_sync(session.execute(catalog, [call]), runtime)

    return one


def appends(journal: Journal) -> Callable[[], None]:
    """Append one call's `tool/call` + `tool/result` pair, with a fresh id."""
    ids = itertools.count()
    result = DurableResult((TextBlock("3"),), None, None)

    def pair() -> None:
        call_id = f"c{next(ids)}"
        journal.append(ToolCallRecord(call_id, call_id, "add", ARGUMENTS))
        journal.append(ToolResultRecord(call_id, result))

    return pair


def run() -> list[Case]:
    """Time a plain call, a journaled one and a pair of appends at each durability."""
    catalog = plain_location().catalog()
    runtime = SyncRuntime()
    plain = time_call(calls(catalog, runtime, None))
    cases: list[Case] = [("sync execute_batch, one call, no journal", plain)]
    journaled_costs: dict[Durability, float] = {}
    durabilities: tuple[Durability, ...] = ("process", "power")
    with tempfile.TemporaryDirectory() as folder:
        for durability in durabilities:
            path = Path(folder) / f"{durability}.db"
            with SqliteJournal(path, durability=durability) as journal:
                call_cost = time_call(calls(catalog, runtime, journal))
                pair_cost = time_call(appends(journal))
            journaled_costs[durability] = call_cost - plain
            cases += [
                (f"sync execute_batch, one call, journaled ({durability})", call_cost),
                (f"append tool/call + tool/result ({durability})", pair_cost),
            ]
    return [
        *cases,
        (
            "target < 500: journal cost per call, default durability (µs)",
            journaled_costs["process"],
        ),
        ("journal cost per call, power durability (µs)", journaled_costs["power"]),
        (
            "journaled / plain call, default durability (x)",
            (plain + journaled_costs["process"]) / plain,
        ),
    ]
