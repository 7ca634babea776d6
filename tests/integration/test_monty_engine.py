"""Monty's engine with the real worker: every step, failure and limit of a program, stopping
and crashing, gathered calls, threads, and hostile programs. No time is measured: loops that
must be stopped are bounded by Monty's own time limit, so a failure cannot hang CI."""

from __future__ import annotations

import datetime
import os
import signal
import threading
from collections.abc import Callable, Iterator

import pytest
from pydantic_monty import Monty

from toolfx.core.runtime import (
    HOST_EXCEPTIONS,
    CallsWaiting,
    ClockWanted,
    CodeLimits,
    CodeProgram,
    CodeSession,
    HostCall,
    HostError,
    HostException,
    HostValue,
    ProgramFailed,
    ProgramFinished,
    ProgramStep,
    SleepWanted,
)
from toolfx.interpreters import MontyEngine
from toolfx.interpreters.codemode import _monty_pool
from toolfx.interpreters.codemode._monty_session import MontyCodeSession

STUBS = '''
async def get(*, x: int) -> int:
    """Ten times x."""
    ...

async def echo(*, value: object) -> object:
    """The value back."""
    ...
'''
FUNCTIONS = frozenset({"get", "echo"})


def ten_times(call: HostCall) -> HostValue | HostError:
    if call.function == "echo":
        return HostValue(call.arguments["value"])
    x = call.arguments["x"]
    assert isinstance(x, int)
    return HostValue(x * 10)


def start(
    text: str,
    *,
    limits: CodeLimits | None = None,
    stubs: str = STUBS,
    functions: frozenset[str] = FUNCTIONS,
    engine: MontyEngine | None = None,
) -> CodeSession:
    engine = engine or MontyEngine()
    return engine.start(CodeProgram(text, stubs, functions, limits or engine.limits))


def drive(
    session: CodeSession,
    answer: Callable[[HostCall], HostValue | HostError] = ten_times,
    *,
    clock: Iterator[float] | None = None,
) -> tuple[ProgramFinished | ProgramFailed, list[ProgramStep]]:
    """Run a session to its end, answering as told; the steps it took on the way."""
    seconds = clock or iter(range(1_000, 1_000_000))
    steps: list[ProgramStep] = []
    step = session.begin()
    while True:
        match step:
            case CallsWaiting(calls=calls):
                steps.append(step)
                step = session.answer_calls({call.id: answer(call) for call in calls})
            case ClockWanted():
                steps.append(step)
                step = session.answer_clock(float(next(seconds)))
            case SleepWanted():
                steps.append(step)
                step = session.answer_sleep()
            case ProgramFinished() | ProgramFailed():
                session.close()
                return step, steps


def run(text: str, **options: object) -> ProgramFinished | ProgramFailed:
    return drive(start(text, **options))[0]  # type: ignore[arg-type]


@pytest.fixture
def small_pool() -> Iterator[Monty]:
    """A pool of one worker, its checkout bounded so a leaked worker fails instead of hanging."""
    with Monty(min_processes=1, max_processes=1, checkout_timeout=30.0) as pool:
        yield pool


def held_pid(session: CodeSession) -> int:
    assert isinstance(session, MontyCodeSession)
    held = session._session
    assert held is not None
    pid = held.worker_pid
    assert pid is not None
    return pid


# --- steps ---------------------------------------------------------------------------------


def test_a_program_finishes_with_its_last_expression_and_what_it_printed() -> None:
    assert run('print("hi", 1)\nprint("there")\n{"a": [1, 2.5, None, True, "x"]}') == (
        ProgramFinished({"a": [1, 2.5, None, True, "x"]}, "hi 1\nthere\n")
    )


def test_calls_one_at_a_time_are_one_step_each_and_the_answers_are_their_values() -> None:
    finished, steps = drive(start("a = await get(x=1)\nb = await get(x=a)\n[a, b]"))
    assert finished == ProgramFinished([10, 100])
    assert steps == [
        CallsWaiting((HostCall(0, "get", {"x": 1}),)),
        CallsWaiting((HostCall(1, "get", {"x": 10}),)),
    ]


def test_gathered_calls_are_one_step_in_the_programs_order() -> None:
    text = (
        "import asyncio\n"
        "async def twice(i: int) -> list[int]:\n"
        "    return [await get(x=i), await get(x=i + 1)]\n"
        "await asyncio.gather(get(x=1), twice(5), echo(value=[3, {'k': None}]))"
    )
    finished, steps = drive(start(text))
    assert finished == ProgramFinished([10, [50, 60], [3, {"k": None}]])
    first = steps[0]
    assert isinstance(first, CallsWaiting)
    assert [call.id for call in first.calls] == sorted(call.id for call in first.calls)
    # host calls start when made; `twice` runs once gather schedules it, after the other two
    assert [(call.function, call.arguments) for call in first.calls] == [
        ("get", {"x": 1}),
        ("echo", {"value": [3, {"k": None}]}),
        ("get", {"x": 5}),
    ]
    assert steps[1:] == [CallsWaiting((HostCall(3, "get", {"x": 6}),))]


def test_a_thousand_gathered_calls_come_in_one_step() -> None:
    text = "import asyncio\nsum(await asyncio.gather(*[get(x=i) for i in range(1000)]))"
    finished, steps = drive(start(text))
    assert finished == ProgramFinished(sum(range(1000)) * 10)
    assert len(steps) == 1
    only = steps[0]
    assert isinstance(only, CallsWaiting)
    assert [call.arguments["x"] for call in only.calls] == list(range(1000))
    assert [call.id for call in only.calls] == sorted(call.id for call in only.calls)


def test_positional_arguments_are_kept_apart() -> None:
    stubs = "async def pos(x: int, /, *, y: int) -> int: ...\n"
    finished, steps = drive(
        start("await pos(1, y=2)", stubs=stubs, functions=frozenset({"pos"})),
        lambda call: HostValue(list(call.positional)),
    )
    assert finished == ProgramFinished([1])
    assert steps == [CallsWaiting((HostCall(0, "pos", {"y": 2}, (1,)),))]


@pytest.mark.parametrize("exception", HOST_EXCEPTIONS)
def test_a_host_error_raises_its_exception_in_the_program(exception: HostException) -> None:
    text = (
        f"try:\n    await get(x=1)\nexcept {exception} as error:\n    caught = str(error)\ncaught"
    )
    finished, _ = drive(start(text), lambda call: HostError(exception, f"get failed: {exception}"))
    assert finished == ProgramFinished(f"get failed: {exception}")


def test_an_uncaught_host_timeout_is_the_programs_exception_not_the_time_limit() -> None:
    failed, _ = drive(
        start("print('before')\nawait get(x=1)"),
        lambda call: HostError("TimeoutError", "get timed out (TOOL_TIMEOUT)"),
    )
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.exception, failed.limit) == ("exception", "TimeoutError", None)
    assert failed.message.endswith("TimeoutError: get timed out (TOOL_TIMEOUT)")
    assert (failed.line, failed.output) == (2, "before\n")


def test_a_function_in_the_stubs_that_is_no_tool_raises_name_error() -> None:
    stubs = STUBS + "async def hidden() -> int: ...\n"
    failed = run("await hidden()", stubs=stubs)
    assert isinstance(failed, ProgramFailed)
    assert failed.exception == "NameError"
    assert failed.message.endswith("NameError: name 'hidden' is not a tool")


def test_a_tool_named_without_a_call_is_still_the_tool() -> None:
    text = "f = get\ngetters = [get, get]\nrepeat = echo\n[await f(x=1), await repeat(value=2)]"
    finished, steps = drive(start(text))
    assert finished == ProgramFinished([10, 2])
    assert steps == [
        CallsWaiting((HostCall(0, "get", {"x": 1}),)),
        CallsWaiting((HostCall(1, "echo", {"value": 2}),)),
    ]


def test_a_name_in_the_stubs_that_is_no_value_raises_name_error() -> None:
    failed = run("setting + 1", stubs=STUBS + "setting: int\n")
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.exception) == ("exception", "NameError")


def test_every_clock_read_is_a_step_answered_from_the_runtimes_seconds() -> None:
    text = (
        "import time, datetime\n"
        "start = time.time()\n"
        "mono = time.monotonic()\n"
        "now = datetime.datetime.now()\n"
        "zoned = datetime.datetime.now(datetime.timezone.utc)\n"
        "today = datetime.date.today()\n"
        "[time.time() - start, time.monotonic() - mono, now, zoned, today, start]"
    )
    finished, steps = drive(
        start(text), clock=iter([0.0, 60.0, 120.0, 120.0, 120.0, 3600.0, 3600.0])
    )
    assert steps == [ClockWanted()] * 7
    assert isinstance(finished, ProgramFinished)
    assert isinstance(finished.value, list)
    elapsed, mono, now, zoned, today, epoch = finished.value
    assert (elapsed, mono) == (3600.0, 3540.0)
    base = datetime.datetime.fromtimestamp(epoch, datetime.UTC)
    assert zoned == base + datetime.timedelta(seconds=120)
    assert now == (base + datetime.timedelta(seconds=120)).replace(tzinfo=None)
    assert today == (base + datetime.timedelta(seconds=120)).date()


def test_sleeps_are_steps_with_their_seconds() -> None:
    text = (
        "import time, asyncio\n"
        "time.sleep(1.5)\n"
        "await asyncio.sleep(2)\n"
        "await asyncio.gather(get(x=1), asyncio.sleep(0.25))"
    )
    finished, steps = drive(start(text))
    assert finished == ProgramFinished([10, None])
    assert steps == [
        SleepWanted(1.5),
        SleepWanted(2.0),
        SleepWanted(0.25),
        CallsWaiting((HostCall(3, "get", {"x": 1}),)),
    ]


@pytest.mark.parametrize("sleep", ["time.sleep(-1)", "time.sleep(float('nan'))"])
def test_a_sleep_of_no_length_raises_value_error_in_the_program(sleep: str) -> None:
    finished, steps = drive(
        start(f"import time\ntry:\n    {sleep}\nexcept ValueError:\n    r = 'refused'\nr")
    )
    assert (finished, steps) == (ProgramFinished("refused"), [])


def test_each_step_may_run_on_another_thread() -> None:
    session = start("import time\na = await get(x=1)\ntime.time()\ntime.sleep(1)\na")
    answers: list[Callable[[], ProgramStep]] = [
        session.begin,
        lambda: session.answer_calls({0: HostValue(7)}),
        lambda: session.answer_clock(5.0),
        session.answer_sleep,
    ]
    steps: list[ProgramStep] = []
    for answer in answers:
        thread = threading.Thread(target=lambda answer=answer: steps.append(answer()))
        thread.start()
        thread.join()
    session.close()
    assert steps == [
        CallsWaiting((HostCall(0, "get", {"x": 1}),)),
        ClockWanted(),
        SleepWanted(1.0),
        ProgramFinished(7),
    ]


# --- rejections before anything runs -------------------------------------------------------


def test_a_syntax_error_is_rejected_with_its_place_before_anything_runs() -> None:
    failed, steps = drive(start('await get(x=1)\nprint("ran")\nx = (1 +\n'))
    assert steps == []
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.line, failed.output) == ("syntax", 4, "")
    assert "error[invalid-syntax]" in failed.message


def test_a_type_error_against_the_stubs_is_rejected_with_its_place() -> None:
    failed, steps = drive(start('await get(x=1)\nawait get(x="one")'))
    assert steps == []
    assert failed == ProgramFailed(
        "type",
        "main.py:2:11: error[invalid-argument-type] Argument to function `get` is incorrect: "
        'Expected `int`, found `Literal["one"]`',
        line=2,
        column=11,
    )


def test_the_first_error_gives_the_place_even_after_warnings() -> None:
    failed = run("get(x=1)\nawait get(y=2)")
    assert isinstance(failed, ProgramFailed)
    assert failed.message.startswith("main.py:1:1: warning[unused-awaitable]")
    assert (failed.failure, failed.line) == ("type", 2)


def test_syntax_monty_cannot_run_yet_is_rejected_before_anything_runs() -> None:
    failed, steps = drive(start('print("ran")\nawait get(x=1)\ntype Alias = int'))
    assert steps == []
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.line, failed.column, failed.output) == ("syntax", 3, 1, "")
    assert "does not yet support type aliases" in failed.message


def test_a_program_monty_cannot_parse_is_rejected_with_its_place() -> None:
    failed, steps = drive(start("x = 1\n" + "[" * 300 + "]" * 300))  # the checker passes it
    assert steps == []
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.line) == ("syntax", 2)
    assert failed.message.endswith("SyntaxError: Source is too deeply nested")


@pytest.mark.parametrize("text", ['eval("1 +")', 'exec("def f(:")'])
def test_a_syntax_error_in_evaluated_text_is_the_programs_exception(text: str) -> None:
    failed = run(f"await get(x=1)\n{text}")
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.exception, failed.line, failed.column) == (
        "exception",
        "SyntaxError",
        2,
        1,
    )
    assert "(<string>, line 1)" in failed.message
    caught = run(f'try:\n    {text}\nexcept SyntaxError:\n    r = "caught"\nr')
    assert caught == ProgramFinished("caught")


def test_a_program_over_its_characters_is_refused_without_a_worker() -> None:
    closed = Monty(max_processes=1)  # never opened: a checkout would fail `unavailable`
    session = start("1 + 1  ", limits=CodeLimits(program_chars=6), engine=MontyEngine(pool=closed))
    assert session.begin() == ProgramFailed(
        "limit", "The program has 7 characters; it may have 6.", limit="program"
    )
    assert session.answer_sleep() == ProgramFailed("stopped", "The host stopped the program.")


# --- failures ------------------------------------------------------------------------------


def test_an_uncaught_exception_gives_the_traceback_and_its_type() -> None:
    failed = run('def f(n: int) -> int:\n    return 1 // n\nprint("out")\nf(0)')
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.exception, failed.line, failed.output) == (
        "exception",
        "ZeroDivisionError",
        2,
        "out\n",
    )
    assert failed.message.startswith("Traceback (most recent call last):")
    assert "in f\n" in failed.message
    assert failed.message.endswith("ZeroDivisionError: division by zero")


def test_a_value_the_sandbox_cannot_hold_fails_the_program() -> None:
    failed, _ = drive(start("await get(x=1)"), lambda call: HostValue(object()))
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.exception) == ("exception", "TypeError")


@pytest.mark.parametrize(
    ("text", "limits", "limit", "exception"),
    [
        ("x = 0\nwhile True:\n    x += 1", CodeLimits(seconds=0.2), "time", "TimeoutError"),
        (
            "a = [1]\ntry:\n    while True:\n        a = a + a\nexcept MemoryError:\n    a = []",
            CodeLimits(memory_bytes=5_000_000),
            "memory",
            "MemoryError",
        ),
        ('"a" * 10**12', CodeLimits(), "memory", "MemoryError"),
        (
            "def down(n: int) -> int:\n    return down(n + 1)\ndown(0)",
            CodeLimits(recursion_depth=50),
            "recursion",
            "RecursionError",
        ),
    ],
)
def test_each_limit_of_the_sandbox_says_which(
    text: str, limits: CodeLimits, limit: str, exception: str
) -> None:
    failed = run(text, limits=limits)
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.limit, failed.exception) == ("limit", limit, None)
    assert f"({exception}: " in failed.message  # Monty's own words follow the sentence


def test_a_limits_message_leaves_out_what_monty_measured() -> None:
    """The same program fails with the same words each run (its records are the same)."""
    text = "a = [1]\nwhile True:\n    a = a + a"
    first, second = (run(text, limits=CodeLimits(memory_bytes=5_000_000)) for _ in range(2))
    assert isinstance(first, ProgramFailed)
    assert first == second
    assert first.message.endswith("(MemoryError: memory limit exceeded)")


@pytest.mark.parametrize(
    "text",
    [
        "d = 1\nfor i in range(12):\n    d = [d]\nd",
        "d = 1\nfor i in range(12):\n    d = {'k': d}\nd",
        "d = 1\nfor i in range(12):\n    d = (d,)\n[d]",
    ],
)
def test_a_value_nested_past_the_recursion_limit_is_that_limit(text: str) -> None:
    """Monty hands a value over only that deep and puts a marker in the rest: not a value."""
    failed = run(text, limits=CodeLimits(recursion_depth=10))
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.limit) == ("limit", "recursion")
    assert failed.message.startswith("The program's value is nested too deeply")


def test_an_answer_too_large_for_the_programs_memory_is_the_memory_limit() -> None:
    session = start("v = await echo(value=1)\n'kept'", limits=CodeLimits(memory_bytes=8 * 2**20))
    failed, _ = drive(session, lambda call: HostValue("x" * 20 * 2**20))
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.limit) == ("limit", "memory")
    assert failed.message.startswith("The program ran out of memory")


def test_a_value_just_within_the_recursion_limit_is_whole() -> None:
    text = "d = '<deeply nested>'\nfor i in range(9):\n    d = [d, []]\nd"
    finished = run(text, limits=CodeLimits(recursion_depth=10))
    assert isinstance(finished, ProgramFinished)
    assert str(finished.value).count("<deeply nested>") == 1


def test_time_waiting_on_calls_does_not_count_toward_the_time_limit() -> None:
    def slowly(call: HostCall) -> HostValue | HostError:
        threading.Event().wait(0.015)  # 20 answers wait past the program's 0.2 seconds
        return ten_times(call)

    text = "for i in range(20):\n    await get(x=i)\n'done'"
    finished, steps = drive(start(text, limits=CodeLimits(seconds=0.2)), slowly)
    assert (finished, len(steps)) == (ProgramFinished("done"), 20)


def test_printing_past_the_output_limit_stops_the_program_and_keeps_what_fit() -> None:
    text = (
        "await get(x=1)\n"
        "try:\n"
        "    for i in range(100):\n"
        "        print('0123456789')\n"
        "except Exception:\n"
        "    pass\n"
        "'finished'"
    )
    failed = run(text, limits=CodeLimits(output_bytes=25))
    assert failed == ProgramFailed(
        "limit",
        "The program printed more than 25 bytes (UTF-8); its output is cut there.",
        limit="output",
        output="0123456789\n0123456789\n012",
    )


def test_too_many_pauses_for_the_host_is_the_tool_calls_limit() -> None:
    failed = run("for i in range(20):\n    await get(x=i)", engine=MontyEngine(suspensions=10))
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.limit) == ("limit", "pauses")
    assert failed.message.startswith("The program paused for the host more than 10 times")


def test_a_worker_killed_by_the_pools_deadline_is_the_time_limit() -> None:
    with Monty(min_processes=1, max_processes=1, request_timeout=1.0) as pool:
        failed = run("while True:\n    pass", engine=MontyEngine(pool=pool))
    assert isinstance(failed, ProgramFailed)
    assert (failed.failure, failed.limit) == ("limit", "time")
    assert "request timeout" in failed.message


def test_a_worker_killed_under_a_paused_program_is_a_crash(small_pool: Monty) -> None:
    session = start("await get(x=1)\nawait get(x=2)", engine=MontyEngine(pool=small_pool))
    assert isinstance(session.begin(), CallsWaiting)
    pid = held_pid(session)
    os.kill(pid, signal.SIGKILL)
    crashed = session.answer_calls({0: HostValue(1)})
    assert isinstance(crashed, ProgramFailed)
    assert crashed.failure == "crashed"
    assert "worker" in crashed.message
    session.close()
    assert run("await get(x=3)", engine=MontyEngine(pool=small_pool)) == ProgramFinished(30)


def test_no_free_worker_is_unavailable() -> None:
    with Monty(min_processes=1, max_processes=1, checkout_timeout=0.01) as pool:
        engine = MontyEngine(pool=pool)
        holding = start("await get(x=1)", engine=engine)
        assert isinstance(holding.begin(), CallsWaiting)
        failed = run("1", engine=engine)
        holding.close()
    assert isinstance(failed, ProgramFailed)
    assert failed.failure == "unavailable"
    assert "no monty worker became available" in failed.message


def test_a_stop_while_waiting_for_a_worker_is_seen_within_a_turn() -> None:
    with Monty(min_processes=1, max_processes=1, checkout_timeout=0.05) as pool:
        engine = MontyEngine(pool=pool)
        holding = start("await get(x=1)", engine=engine)
        assert isinstance(holding.begin(), CallsWaiting)
        waiting = start("1", engine=engine)
        began: list[ProgramStep] = []
        thread = threading.Thread(target=lambda: began.append(waiting.begin()))
        thread.start()
        waiting.stop()  # at once or after some turns of waiting: never the minute of all turns
        thread.join()
        holding.close()
    (step,) = began
    assert isinstance(step, ProgramFailed)
    assert step.failure == "stopped"  # not `unavailable`: it stopped waiting


# --- stop and close ------------------------------------------------------------------------


@pytest.mark.parametrize("end", ["stop", "close"])
def test_stop_from_another_thread_ends_a_running_loop_and_frees_the_worker(
    small_pool: Monty, end: str
) -> None:
    engine = MontyEngine(CodeLimits(seconds=60.0), pool=small_pool)
    session = start("await get(x=1)\nwhile True:\n    pass", engine=engine)
    assert isinstance(session, MontyCodeSession)
    assert isinstance(session.begin(), CallsWaiting)
    pid = held_pid(session)
    steps: list[ProgramStep] = []
    runner = threading.Thread(target=lambda: steps.append(session.answer_calls({0: HostValue(1)})))
    runner.start()
    while session._running is None and runner.is_alive():
        threading.Event().wait(0.001)
    getattr(session, end)()
    runner.join()
    assert steps == [ProgramFailed("stopped", "The host stopped the program.")]
    assert session._session is None
    session.close()
    again = start("await get(x=2)", engine=engine)
    assert isinstance(again.begin(), CallsWaiting)
    assert held_pid(again) != pid
    again.close()


def test_stop_between_steps_makes_the_next_one_stopped_and_keeps_the_output() -> None:
    session = start("print('so far')\nawait get(x=1)")
    assert isinstance(session.begin(), CallsWaiting)
    session.stop()
    assert session.answer_calls({0: HostValue(1)}) == ProgramFailed(
        "stopped", "The host stopped the program.", output="so far\n"
    )
    session.close()


def test_stop_or_close_before_begin_runs_nothing() -> None:
    for end in ("stop", "close"):
        session = start("await get(x=1)")
        getattr(session, end)()
        assert session.begin() == ProgramFailed("stopped", "The host stopped the program.")


def test_close_is_idempotent_and_safe_after_any_end() -> None:
    for text in ("1", "raise ValueError()", "x = (", "await get(x=1)"):
        session = start(text)
        session.begin()
        session.close()
        session.close()
        assert session.answer_sleep() == ProgramFailed("stopped", "The host stopped the program.")


def test_close_gives_a_paused_programs_worker_back(small_pool: Monty) -> None:
    engine = MontyEngine(pool=small_pool)
    for x in range(3):
        session = start(f"await get(x={x})", engine=engine)
        assert isinstance(session.begin(), CallsWaiting)
        session.close()


def test_an_answer_the_program_does_not_wait_for_is_the_hosts_error() -> None:
    session = start("import time\nawait get(x=1)\ntime.time()")
    assert isinstance(session.begin(), CallsWaiting)
    with pytest.raises(RuntimeError, match="begin: the program has begun already"):
        session.begin()
    with pytest.raises(RuntimeError, match="answer_clock: the program is not waiting on a clock"):
        session.answer_clock(1.0)
    with pytest.raises(RuntimeError, match="answer_sleep: the program is not waiting on a sleep"):
        session.answer_sleep()
    with pytest.raises(ValueError, match=r"waits on calls \[0\], not \[0, 1\]"):
        session.answer_calls({0: HostValue(1), 1: HostValue(2)})
    assert session.answer_calls({0: HostValue(1)}) == ClockWanted()
    with pytest.raises(RuntimeError, match="answer_calls: the program is not waiting on tool"):
        session.answer_calls({})
    session.close()


# --- pools ---------------------------------------------------------------------------------


def test_engines_without_a_pool_share_the_process_wide_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[Monty] = []

    def counted() -> Monty:
        asked.append(_monty_pool._SHARED.get())
        return asked[-1]

    monkeypatch.setattr(_monty_pool, "shared_pool", counted)
    assert run("await get(x=1)") == ProgramFinished(10)
    assert run("await get(x=2)", engine=MontyEngine(CodeLimits(seconds=5.0))) == (
        ProgramFinished(20)
    )
    assert len(asked) == 2
    assert asked[0] is asked[1]


def test_a_given_pool_runs_the_engines_programs() -> None:
    with Monty(min_processes=1, max_processes=1, checkout_timeout=0.01) as pool:
        session = start("await get(x=1)", engine=MontyEngine(pool=pool))
        assert isinstance(session.begin(), CallsWaiting)
        with pytest.raises(TimeoutError), pool.checkout():
            pass  # the engine's program holds the pool's only worker
        session.close()
        with pool.checkout() as free:  # closing gave it back
            assert free.worker_pid is not None


# --- hostile programs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "failure", "detail"),
    [
        ('open("/etc/passwd").read()', "type", None),
        (
            'from pathlib import Path\nPath("/etc/passwd").read_text()',
            "exception",
            "PermissionError",
        ),
        (
            'from pathlib import Path\nPath("/tmp/x").write_text("x")',
            "exception",
            "PermissionError",
        ),
        ('import os\nos.getenv("HOME")', "exception", "RuntimeError"),
        ("import os\nos.environ", "exception", "RuntimeError"),
        ("import socket", "type", None),
        ("import subprocess", "type", None),
        ("import sys\nsys.exit(1)", "type", None),
        ("__import__('os')", "type", None),
        ("eval(\"open('/etc/passwd').read()\")", "exception", "PermissionError"),
        ("exec(\"import os\\nos.getenv('HOME')\")", "exception", "RuntimeError"),
        ("exec('import socket')", "exception", "ModuleNotFoundError"),
        ("eval(\"__import__('os')\")", "exception", "NameError"),
        ('print("a" * 10**7)', "limit", "output"),
        ("[0] * 10**9", "limit", "memory"),
        ("def down(n: int) -> int:\n    return down(n)\ndown(0)", "limit", "recursion"),
    ],
)
def test_a_program_reaches_nothing_of_the_hosts(
    text: str, failure: str, detail: str | None
) -> None:
    """Each hostile program fails typed; `detail` is its exception, or the limit it hit."""
    failed = run(text)
    assert isinstance(failed, ProgramFailed)
    assert failed.failure == failure
    if failure == "limit":
        assert failed.limit == detail
    else:
        assert failed.exception == detail
    if failure == "exception":
        # the program's own last line, not a line of the text an eval or exec ran
        assert (failed.line, failed.column) == (text.count("\n") + 1, 1)
