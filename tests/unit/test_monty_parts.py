"""The Monty engine's pure parts: bounded output, the program's clock, sleep requests, the
shared pool's one-time start, which engine a runtime gets by default, and finding a value Monty
cut at the recursion depth."""

from __future__ import annotations

import atexit
import datetime
import math
import subprocess
import sys
import threading
from typing import NoReturn

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolfx.core.runtime import CodeLimits, CodeProgram, ProgramFailed
from toolfx.interpreters import MontyEngine
from toolfx.interpreters.codemode import UnavailableEngine, _monty_pool, default_engine
from toolfx.interpreters.codemode._monty_clock import ClockRead, ProgramClock, sleep_seconds
from toolfx.interpreters.codemode._monty_failures import cut_short
from toolfx.interpreters.codemode._monty_output import BoundedOutput, OutputExceeded


def _print_all(output: BoundedOutput, texts: list[str]) -> None:
    for text in texts:
        output("stdout", text)


@given(st.lists(st.text(max_size=40), max_size=12), st.integers(1, 200))
def test_output_keeps_a_prefix_within_the_limit_and_stops_exactly_past_it(
    texts: list[str], limit: int
) -> None:
    output = BoundedOutput(limit)
    whole = "".join(texts)
    total = len(whole.encode("utf-8", "surrogatepass"))
    if total > limit:
        with pytest.raises(OutputExceeded):
            _print_all(output, texts)
    else:
        _print_all(output, texts)
    assert output.exceeded == (total > limit)
    assert whole.startswith(output.text)
    assert len(output.text.encode("utf-8", "surrogatepass")) <= limit
    if not output.exceeded:
        assert output.text == whole


def test_output_cut_never_splits_a_character() -> None:
    output = BoundedOutput(5)
    with pytest.raises(OutputExceeded, match="more than 5 bytes"):
        output("stderr", "ab€€")  # 2 + 3 + 3 bytes: the second € does not fit
    assert output.text == "ab€"


def test_clock_starts_at_the_wall_clock_and_moves_by_the_runtimes_seconds() -> None:
    reads: list[float] = []

    def wall() -> float:
        reads.append(1_700_000_000.0)
        return reads[-1]

    clock = ProgramClock(wall)
    assert clock.epoch(1_000.0) == 1_700_000_000.0
    assert clock.epoch(4_600.0) == 1_700_003_600.0
    assert clock.epoch(1_000.0) == 1_700_000_000.0
    assert len(reads) == 1  # the wall clock is read once, at the first read


@given(st.floats(0, 10**6), st.floats(0, 10**6))
def test_clock_reads_are_one_clock(start: float, later: float) -> None:
    clock = ProgramClock()
    epoch = clock.epoch(start)
    moved = clock.epoch(start + later)
    assert math.isclose(moved - epoch, later, abs_tol=1e-6)


def test_clock_answers_each_clock_function_in_its_type() -> None:
    clock = ProgramClock()
    epoch = clock.epoch(0.0)
    utc = datetime.datetime.fromtimestamp(epoch, datetime.UTC)
    plus_two = datetime.timezone(datetime.timedelta(hours=2))
    assert clock.answer(ClockRead("time.time", ("time.monotonic",)), 0.0) == epoch
    assert clock.answer(ClockRead("date.today", ()), 0.0) == utc.date()
    assert clock.answer(ClockRead("datetime.now", (None,)), 0.0) == utc.replace(tzinfo=None)
    zoned = clock.answer(ClockRead("datetime.now", (plus_two,)), 0.0)
    assert zoned == utc
    assert isinstance(zoned, datetime.datetime)
    assert zoned.tzinfo is plus_two


@given(st.one_of(st.integers(-(10**6), 10**6), st.floats(allow_nan=True, allow_infinity=True)))
def test_a_sleep_is_valid_exactly_for_a_finite_non_negative_number(seconds: float) -> None:
    answer = sleep_seconds((seconds,))
    if math.isfinite(seconds) and seconds >= 0:
        assert answer == float(seconds)
    else:
        assert isinstance(answer, str)
        assert "sleep length must be" in answer


@pytest.mark.parametrize("args", [(), (True,), ("1",), (1.0, 2.0), (None,)])
def test_a_sleep_of_anything_but_one_number_is_refused(args: tuple[object, ...]) -> None:
    assert sleep_seconds(args) == f"sleep takes one number of seconds, not {args!r}"


def test_the_shared_pool_starts_once_however_many_threads_ask(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[object] = []
    closers: list[object] = []

    class FakePool:
        def __init__(self, **options: object) -> None:
            made.append(options)

        def __enter__(self) -> FakePool:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(_monty_pool, "Monty", FakePool)
    monkeypatch.setattr(atexit, "register", lambda *args: closers.append(args))
    shared = _monty_pool.SharedPool()
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(shared.get())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1
    assert len(closers) == 1
    assert len(got) == 8
    assert all(pool is got[0] for pool in got)
    assert made[0] == {
        "min_processes": 1,
        "max_processes": _monty_pool.MAX_WORKERS,
        "checkout_timeout": _monty_pool.CHECKOUT_TURN,
        "feed_duration_limit_grace": _monty_pool.FEED_GRACE,
    }


def test_an_engine_takes_no_worker_until_a_program_begins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []

    def pool() -> NoReturn:
        asked.append("pool")
        raise RuntimeError("no pool in this test")

    monkeypatch.setattr(_monty_pool, "shared_pool", pool)
    engine = MontyEngine()
    session = engine.start(CodeProgram("1", "", frozenset(), engine.limits))
    assert asked == []
    failed = session.begin()
    assert asked == ["pool"]
    assert failed == ProgramFailed(
        "unavailable", "No Monty worker could run the program: no pool in this test"
    )


def test_default_engine_is_montys_when_monty_imports() -> None:
    engine = default_engine()
    assert isinstance(engine, MontyEngine)
    assert engine.limits == CodeLimits()


def test_default_engine_is_unavailable_when_monty_does_not_import(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "pydantic_monty", None)
    assert isinstance(default_engine(), UnavailableEngine)


def test_the_interpreters_import_without_monty() -> None:
    script = (
        "import sys; sys.modules['pydantic_monty'] = None\n"
        "import toolfx.interpreters\n"
        "from toolfx.interpreters.codemode import default_engine\n"
        "print(type(default_engine()).__name__)\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert ran.stdout == "UnavailableEngine\n"


@pytest.mark.parametrize("suspensions", [0, -1, True, 1.5])
def test_engine_suspensions_must_be_a_positive_int(suspensions: object) -> None:
    with pytest.raises(ValueError, match=r"MontyEngine\.suspensions must be a positive int"):
        MontyEngine(suspensions=suspensions)  # type: ignore[arg-type]


CUT = "<deeply nested>"


@pytest.mark.parametrize(
    ("value", "cut"),
    [
        ([[[CUT]]], True),
        ({"a": [CUT]}, False),  # the marker two deep, the limit three: the program's text
        ([[{CUT: CUT}]], True),
        ([[(1, CUT)]], True),
        ([[frozenset({CUT})]], True),
        ([[[]]], False),
        ([[[1]]], False),
        ([[CUT]], False),
        ([[[[CUT]]]], False),  # deeper than Monty would leave it: never its marker
        (CUT, False),
    ],
)
def test_a_value_is_cut_short_only_with_the_marker_exactly_at_the_depth(
    value: object, cut: bool
) -> None:
    assert cut_short(value, 3) is cut
