"""Code Mode end to end: real programs through `run_code` in Monty's workers (the runtime's
default engine), under every interpreter: sync, anyio on asyncio and trio, deterministic.

Each scenario runs the same program under all four and checks they agree on the result (value
and content), every record (`to_json()`) and the defects reported; then what it must be. No time
is measured: programs that must be stopped are bounded by their limits, tool bodies that wait for
each other by a count of checkpoints.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypedDict

import pytest
from returns.result import Failure, Result

from tests.codemode_support import (
    INTERPRETERS,
    Interpreter,
    failure_of,
    run_code_under,
    run_everywhere,
    sub_call_ledger,
    value_of,
)
from toolfx.core import (
    Ask,
    CancelSignal,
    Catalog,
    CodeDispatchLog,
    CodeLimits,
    ContentBlock,
    ErrorCode,
    Location,
    Output,
    PreToolDecision,
    TextBlock,
    ToolExecution,
    ToolFailure,
    ToolRunContext,
    define_tool,
)
from toolfx.core.runtime import ApprovalReply, ApprovalRequest
from toolfx.interpreters import MontyEngine

SPINS = 200
"""Checkpoints a body waiting for others to arrive takes at most before it gives up."""


class XArgs(TypedDict):
    x: int


@dataclass
class Desk:
    """A scope presented as code over counting tools; what ran, how many bodies at once."""

    signal: CancelSignal = field(default_factory=CancelSignal)
    ran: list[str] = field(default_factory=list)
    running: int = 0
    peak: int = 0
    location: Location = field(default_factory=Location)

    def __post_init__(self) -> None:
        for name, safe in (("double", True), ("meet", True), ("alone", False)):
            self.location.register(
                define_tool(
                    name=name,
                    description=f"Twice x ({name}).",
                    parameters=XArgs,
                    output=Output(int),
                    execute=self._meeting if name != "double" else self._double,
                    is_concurrency_safe=(lambda args: True) if safe else None,
                )
            )
        for name, body in (("boom", self._boom), ("guarded", self._double)):
            self.location.register(
                define_tool(
                    name=name,
                    description=f"{name} x.",
                    parameters=XArgs,
                    output=Output(int),
                    execute=body,
                )
            )
        self.location.register(
            define_tool(
                name="secret",
                description="A secret.",
                parameters=XArgs,
                output=Output(int),
                execute=self._double,
            )
        )
        self.location.register(
            define_tool(
                name="halt",
                description="Cancels the caller.",
                parameters=XArgs,
                output=Output(int),
                execute=self._halt,
            )
        )
        self.location.add_scope("agent")
        self.location.present_as("agent", "code")

    @property
    def catalog(self) -> Catalog:
        return self.location.catalog("agent")

    def _double(self, args: XArgs, ctx: ToolRunContext) -> int:
        self.ran.append(f"{ctx.name} {args['x']}")
        return args["x"] * 2

    async def _meeting(self, args: XArgs, ctx: ToolRunContext) -> int:
        """Arrive, wait (a bounded number of checkpoints) for x bodies to run at once, leave."""
        self.ran.append(f"{ctx.name} {args['x']}")
        self.running += 1
        self.peak = max(self.peak, self.running)
        for _ in range(SPINS):
            if self.running >= args["x"]:
                break
            await ctx.runtime.checkpoint()
        self.running -= 1
        return args["x"] * 2

    def _boom(self, args: XArgs, ctx: ToolRunContext) -> Result[int, ToolFailure]:
        self.ran.append(f"boom {args['x']}")
        return Failure(ToolFailure.of(ErrorCode.TOOL_ERROR, f"boom {args['x']}"))

    def _halt(self, args: XArgs, ctx: ToolRunContext) -> int:
        self.ran.append(f"halt {args['x']}")
        self.signal.cancel("the user stopped it")
        return 0


def desks() -> tuple[list[Desk], Callable[[], Catalog]]:
    """A factory of fresh desks' catalogs, and the desks it made (one per interpreter run)."""
    made: list[Desk] = []

    def fresh() -> Catalog:
        made.append(Desk())
        return made[-1].catalog

    return made, fresh


# --- values, content, ids and records ------------------------------------------------------


def test_a_program_gives_the_same_value_content_and_records_everywhere() -> None:
    made, fresh = desks()
    code = (
        "a = await double(x=1)\n"
        "b, c = await asyncio.gather(double(x=a), double(x=a + 1))\n"
        "print('sum', a + b + c)\n"
        "{'a': a, 'bc': [b, c], 'half': (b + c) / 2, 'ok': True, 'none': None}"
    )
    ran = run_everywhere(fresh, "import asyncio\n" + code)
    assert value_of(ran) == {"a": 2, "bc": [4, 6], "half": 5.0, "ok": True, "none": None}
    assert ran.result.content[0] == TextBlock("sum 12\n")
    assert ran.result.meta == {"calls": 3, "failed": 0}
    assert [desk.ran for desk in made] == [["double 1", "double 2", "double 3"]] * 4
    assert ran.defects == ()


def test_sub_calls_are_numbered_in_program_order_with_parent_and_root() -> None:
    _, fresh = desks()
    code = (
        "import asyncio\n"
        "await double(x=1)\n"
        "await asyncio.gather(double(x=2), alone(x=1), double(x=3))\n"
        "await double(x=4)"
    )
    ran = run_everywhere(fresh, code)
    assert value_of(ran) == 8
    ledger = sub_call_ledger(ran)
    ids = [call_id for event, call_id in ledger if event == "tool/call"]
    assert ids == [f"c1:code:{n}" for n in range(1, 6)]
    opened = [r for r in ran.records if isinstance(r, dict) and r["event"] == "tool/call"]
    assert opened[0] == {
        "event": "tool/call",
        "callId": "c1",
        "rootCallId": "c1",
        "name": "run_code",
        "arguments": {"code": code},
        "agent": "agent",
    }
    for record, n in zip(opened[1:], range(1, 6), strict=True):
        assert record["parentCallId"] == "c1"
        assert record["rootCallId"] == "c1"
        assert record["agent"] == "agent"
        assert record["callId"] == f"c1:code:{n}"
    names = [r["name"] for r in opened[1:]]
    assert names == ["double", "double", "alone", "double", "double"]
    last = ran.records[-1]
    assert isinstance(last, dict)
    assert (last["event"], last["callId"]) == ("tool/result", "c1")


def test_a_sub_call_of_a_nested_outer_id_keeps_the_outer_root() -> None:
    ran = run_code_under("sync", Desk().catalog, "await double(x=1)", call_id="turn-3/c9")
    ledger = sub_call_ledger(ran, "turn-3/c9")
    assert ledger == [("tool/call", "turn-3/c9:code:1"), ("tool/code-dispatch", "turn-3/c9:code:1")]


# --- asks, guards, failures the program catches ---------------------------------------------


def asking(location: Location) -> None:
    async def ask_for_guarded(
        execution: ToolExecution, next_decision: Callable[[], Awaitable[PreToolDecision]]
    ) -> PreToolDecision:
        if execution.name == "guarded":
            return Ask("guarded needs a yes")
        return await next_decision()

    location.on_pre_execute(ask_for_guarded)


ASKED = (
    "try:\n"
    "    r = await guarded(x=21)\n"
    "except PermissionError as error:\n"
    "    r = 'refused: ' + str(error)\n"
    "r"
)


@pytest.mark.parametrize(
    ("reply", "value", "ran"),
    [
        ("allowed-once", 42, ["guarded 21"]),
        ("rejected", "refused: `guarded` failed (DENIED)", []),
    ],
)
def test_an_ask_inside_a_program_runs_only_when_allowed_once(
    reply: ApprovalReply, value: str | int, ran: list[str]
) -> None:
    made: list[Desk] = []
    asked: list[str] = []

    def fresh() -> Catalog:
        made.append(Desk())
        asking(made[-1].location)
        return made[-1].catalog

    def approve(request: ApprovalRequest) -> ApprovalReply:
        asked.append(f"{request.call_id} {request.tool}")
        return reply

    outcome = value_of(run_everywhere(fresh, ASKED, approvals=approve))
    if isinstance(value, str):
        assert isinstance(outcome, str)
        assert outcome.startswith(value)
    else:
        assert outcome == value
    assert asked == ["c1:code:1 guarded"] * 4
    assert [desk.ran for desk in made] == [ran] * 4


def test_a_guard_denies_one_sub_call_and_the_program_catches_it() -> None:
    made: list[Desk] = []

    def fresh() -> Catalog:
        made.append(Desk())
        made[-1].location.guard(lambda e: "secrets stay put" if e.name == "secret" else None)
        return made[-1].catalog

    code = (
        "try:\n"
        "    s = await secret(x=1)\n"
        "except PermissionError as error:\n"
        "    s = str(error)\n"
        "[s, await double(x=5)]"
    )
    ran = run_everywhere(fresh, code)
    assert value_of(ran) == ["`secret` failed (DENIED): Denied: secrets stay put", 10]
    assert ran.result.meta == {"calls": 2, "failed": 1}
    assert [desk.ran for desk in made] == [["double 5"]] * 4
    dispatched = [
        r for r in ran.records if isinstance(r, dict) and r["event"] == "tool/code-dispatch"
    ]
    assert [(r["name"], r["isError"]) for r in dispatched] == [("secret", True), ("double", False)]


def test_a_failing_tool_raises_runtime_error_the_program_may_catch() -> None:
    _, fresh = desks()
    code = (
        "out = []\n"
        "try:\n"
        "    await boom(x=3)\n"
        "except RuntimeError as error:\n"
        "    out.append(str(error))\n"
        "out.append(await double(x=4))\n"
        "out"
    )
    ran = run_everywhere(fresh, code)
    assert value_of(ran) == ["`boom` failed (TOOL_ERROR): boom 3", 8]
    assert ran.result.meta == {"calls": 2, "failed": 1}


# --- scheduling: overlap only when parallel-safe --------------------------------------------


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_gathered_parallel_safe_calls_overlap_and_exclusive_ones_do_not(
    interpreter: Interpreter,
) -> None:
    together = Desk()
    meets = ", ".join("meet(x=3)" for _ in range(3))
    ran = run_code_under(
        interpreter, together.catalog, f"import asyncio\nawait asyncio.gather({meets})"
    )
    assert value_of(ran) == [6, 6, 6]
    # the sync interpreter runs gathered calls one after another, by its contract
    assert together.peak == (1 if interpreter == "sync" else 3)

    apart = Desk()
    alones = ", ".join("alone(x=3)" for _ in range(3))
    ran = run_code_under(
        interpreter, apart.catalog, f"import asyncio\nawait asyncio.gather({alones})"
    )
    assert value_of(ran) == [6, 6, 6]
    assert apart.peak == 1
    assert apart.ran == ["alone 3"] * 3


@pytest.mark.parametrize("interpreter", ["asyncio", "trio", "deterministic"])
def test_parallel_calls_never_exceed_the_limit(interpreter: Interpreter) -> None:
    desk = Desk()
    meets = ", ".join("meet(x=5)" for _ in range(5))
    engine = MontyEngine(limits=CodeLimits(parallel_calls=2))
    ran = run_code_under(
        interpreter, desk.catalog, f"import asyncio\nawait asyncio.gather({meets})", engine=engine
    )
    assert value_of(ran) == [10] * 5
    assert desk.peak == 2


# --- limits ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "limits", "limit", "error"),
    [
        ("x = 0\nwhile True:\n    x += 1", CodeLimits(seconds=0.2), "time", ErrorCode.TOOL_TIMEOUT),
        ("data = [0] * 10**8\nlen(data)", CodeLimits(memory_bytes=16 * 2**20), "memory", None),
        (
            "def down(n: int) -> int:\n    return down(n + 1)\ndown(0)",
            CodeLimits(recursion_depth=40),
            "recursion",
            None,
        ),
        (
            "for i in range(100):\n    print('0123456789')",
            CodeLimits(output_bytes=25),
            "output",
            None,
        ),
    ],
)
def test_each_engine_limit_gives_a_typed_failure_naming_it(
    code: str, limits: CodeLimits, limit: str, error: ErrorCode | None
) -> None:
    made, fresh = desks()
    ran = run_everywhere(fresh, "await double(x=1)\n" + code, engine=MontyEngine(limits=limits))
    failure = failure_of(ran)
    assert failure.error.code is (error or ErrorCode.TOOL_ERROR)
    details = failure.error.info.details
    assert isinstance(details, dict)
    assert (details["failure"], details["limit"]) == ("limit", limit)
    assert f"its {limit} limit" in failure.error.message
    assert failure.meta == {"calls": 1, "failed": 0}
    assert [desk.ran for desk in made] == [["double 1"]] * 4
    if limit == "output":
        assert failure.error.message.endswith("It printed:\n0123456789\n0123456789\n012")


def test_the_tool_calls_limit_stops_the_program_before_the_call_past_it() -> None:
    made, fresh = desks()
    code = "for i in range(10):\n    await double(x=i)\n'never'"
    ran = run_everywhere(fresh, code, engine=MontyEngine(limits=CodeLimits(tool_calls=3)))
    failure = failure_of(ran)
    assert failure.error.info.details == {"failure": "limit", "limit": "tool_calls"}
    assert [desk.ran for desk in made] == [["double 0", "double 1", "double 2"]] * 4
    assert len(sub_call_ledger(ran)) == 6


def test_a_gather_past_the_tool_calls_limit_runs_none_of_it() -> None:
    made, fresh = desks()
    code = "import asyncio\nawait asyncio.gather(*[double(x=i) for i in range(50)])"
    ran = run_everywhere(fresh, code, engine=MontyEngine(limits=CodeLimits(tool_calls=10)))
    assert failure_of(ran).error.info.details == {"failure": "limit", "limit": "tool_calls"}
    assert [desk.ran for desk in made] == [[]] * 4
    assert sub_call_ledger(ran) == []


def test_sleeping_past_the_sleep_limit_stops_the_program_before_it_sleeps() -> None:
    _, fresh = desks()
    code = "import asyncio\nawait asyncio.sleep(0.01)\nawait asyncio.sleep(20)\n'woke'"
    ran = run_everywhere(fresh, code, engine=MontyEngine(limits=CodeLimits(sleep_seconds=1)))
    assert failure_of(ran).error.info.details == {"failure": "limit", "limit": "sleep"}


def test_a_long_sleep_is_virtual_under_the_deterministic_interpreter() -> None:
    code = (
        "import asyncio, time\n"
        "start = time.monotonic()\n"
        "await asyncio.sleep(20)\n"
        "await double(x=1)\n"
        "round(time.monotonic() - start, 6)"
    )
    ran = run_code_under("deterministic", Desk().catalog, code)
    assert value_of(ran) == 20.0
    sleeps = [event for event in ran.trace if event.kind == "sleep"]
    assert sleeps, ran.trace


def test_a_program_over_its_size_is_refused_before_anything_runs() -> None:
    made, fresh = desks()
    code = "await double(x=1)\n" + "# padding\n" * 10
    ran = run_everywhere(fresh, code, engine=MontyEngine(limits=CodeLimits(program_chars=50)))
    failure = failure_of(ran)
    assert failure.error.info.details == {"failure": "limit", "limit": "program"}
    assert f"{len(code)} characters" in failure.error.message
    assert [desk.ran for desk in made] == [[]] * 4
    assert sub_call_ledger(ran) == []


# --- cancellation ----------------------------------------------------------------------------


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_cancelling_mid_program_aborts_it_and_later_calls_never_run(
    interpreter: Interpreter,
) -> None:
    desk = Desk()
    code = "await double(x=1)\nawait halt(x=0)\nawait double(x=2)\nwhile True:\n    pass"
    ran = run_code_under(
        interpreter,
        desk.catalog,
        code,
        signal=desk.signal,
        engine=MontyEngine(limits=CodeLimits(seconds=5)),
    )
    failure = failure_of(ran)
    assert failure.error.code is ErrorCode.ABORTED
    assert "the user stopped it" in failure.error.message
    assert desk.ran == ["double 1", "halt 0"]
    ids = [call_id for event, call_id in sub_call_ledger(ran) if event == "tool/call"]
    assert ids == ["c1:code:1", "c1:code:2"]


def test_cancellation_gives_the_same_records_everywhere() -> None:
    runs = []
    for interpreter in INTERPRETERS:
        desk = Desk()
        runs.append(
            run_code_under(
                interpreter, desk.catalog, "await halt(x=0)\nawait double(x=1)", signal=desk.signal
            )
        )
    assert all(ran == runs[0] for ran in runs)


def test_a_caller_cancelled_before_it_starts_runs_nothing() -> None:
    made: list[Desk] = []
    for interpreter in INTERPRETERS:
        desk = Desk()
        made.append(desk)
        signal = CancelSignal()
        signal.cancel("gone")
        ran = run_code_under(interpreter, desk.catalog, "await double(x=1)", signal=signal)
        assert failure_of(ran).error.code is ErrorCode.ABORTED_BEFORE_DISPATCH
    assert [desk.ran for desk in made] == [[]] * 4


# --- rejected programs and uncaught exceptions ----------------------------------------------


@pytest.mark.parametrize(
    ("code", "failure", "line", "column"),
    [
        ("await double(x=1)\nx = = 2\n", "syntax", 2, 5),
        ("await double(x=1)\nx = (1 +\n", "syntax", 3, None),  # the parser stops at the end
        ("await double(x=1)\nawait missing(x=1)", "type", 2, 7),  # no such tool: never runs
        ("await double(x=1)\nawait double(x='one')", "type", 2, 14),
        ("await double(x=1)\nawait double(y=1)", "type", 2, None),
        ("await double(x=1)\nawait double(1)", "type", 2, None),
    ],
)
def test_a_program_that_does_not_check_is_invalid_args_with_its_place_and_nothing_ran(
    code: str, failure: str, line: int, column: int | None
) -> None:
    made, fresh = desks()
    ran = run_everywhere(fresh, code)
    refused = failure_of(ran)
    assert refused.error.code is ErrorCode.INVALID_ARGS
    details = refused.error.info.details
    assert isinstance(details, dict)
    assert (details["failure"], details["line"]) == (failure, line)
    assert isinstance(details["column"], int)
    if column is not None:
        assert details["column"] == column
    assert f"(line {line}, column {details['column']})" in refused.error.message
    assert [desk.ran for desk in made] == [[]] * 4
    assert sub_call_ledger(ran) == []


def test_an_uncaught_exception_is_a_tool_error_with_the_traceback() -> None:
    made, fresh = desks()
    code = "a = await double(x=1)\nprint('before')\nraise ValueError(f'bad {a}')"
    failure = failure_of(run_everywhere(fresh, code))
    assert failure.error.code is ErrorCode.TOOL_ERROR
    assert failure.error.info.details == {
        "failure": "exception",
        "exception": "ValueError",
        "line": 3,
        "column": 7,  # where the raised expression starts
    }
    message = failure.error.message
    assert "Traceback" in message
    assert "line 3" in message
    assert "ValueError: bad 2" in message
    assert message.endswith("It printed:\nbefore\n")
    assert failure.meta == {"calls": 1, "failed": 0}
    assert [desk.ran for desk in made] == [["double 1"]] * 4


def test_an_uncaught_tool_failure_names_the_tool_and_code_in_the_traceback() -> None:
    failure = failure_of(run_everywhere(desks()[1], "await boom(x=7)"))
    assert failure.error.code is ErrorCode.TOOL_ERROR
    assert failure.error.info.details["exception"] == "RuntimeError"  # type: ignore[index, call-overload]
    assert "RuntimeError: `boom` failed (TOOL_ERROR): boom 7" in failure.error.message
    assert failure.meta == {"calls": 1, "failed": 1}


# --- the dispatch log --------------------------------------------------------------------------


def test_the_dispatch_log_waterfall_replaces_only_the_logged_copy() -> None:
    made: list[Desk] = []
    seen: list[str] = []

    async def redact(
        log: CodeDispatchLog, next_content: Callable[[], Awaitable[tuple[ContentBlock, ...]]]
    ) -> tuple[ContentBlock, ...]:
        original = await next_content()
        seen.append(f"{log.sub_call_id} {log.name} {original}")
        return (TextBlock(f"[{log.name}: redacted]"),)

    def fresh() -> Catalog:
        made.append(Desk())
        made[-1].location.on_code_dispatch_log(redact, "agent")
        return made[-1].catalog

    code = (
        "import asyncio\n"
        "try:\n"
        "    await asyncio.gather(double(x=1), boom(x=2))\n"
        "except RuntimeError:\n"
        "    pass\n"
        "await double(x=3)"
    )
    ran = run_everywhere(fresh, code)
    assert value_of(ran) == 6  # the program got the real value
    logged = [r for r in ran.records if isinstance(r, dict) and r["event"] == "tool/code-dispatch"]
    assert [r["content"] for r in logged] == [
        [{"type": "text", "text": "[double: redacted]"}],
        [{"type": "text", "text": "[boom: redacted]"}],
        [{"type": "text", "text": "[double: redacted]"}],
    ]
    assert (
        seen
        == [
            "c1:code:1 double (TextBlock(text='2'),)",
            "c1:code:2 boom (TextBlock(text='boom 2'),)",
            "c1:code:3 double (TextBlock(text='6'),)",
        ]
        * 4
    )
    result = [r for r in ran.records if isinstance(r, dict) and r["event"] == "tool/result"]
    assert result[0]["result"]["content"] == [{"type": "text", "text": "6"}]
