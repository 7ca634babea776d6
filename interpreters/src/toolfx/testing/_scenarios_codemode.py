"""Code Mode scenarios: `run_code` programs through the whole pipeline, under every interpreter.

A scenario's program is scripted (`ScriptedCode`, no sandbox worker): the interpreter under test
is built with it as its runtime's `code` engine (`Host.code`). Each program's tool calls are
sub-dispatches of the outer `run_code` call: ids `<outer id>:code:<n>`, the outer root id, its
token as parent, scheduled like a batch, through policy, asks and guards; each answers the
program with its value or the exception its failure maps to. Then the program's own outcomes:
its value, printed output and summary. The program's other outcomes are in
`_scenarios_codemode_outcomes`, the dispatch log and the records in `_scenarios_codemode_log`.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, Final, TypedDict

import pytest
from returns.result import Failure, Result

from toolfx.core.codemode import RUN_CODE
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.records import SessionRecord
from toolfx.core.runtime import ApprovalReply, CancelSignal, CodeLimits
from toolfx.core.tools import (
    Ask,
    ErrorCode,
    Output,
    PreToolDecision,
    TextBlock,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    ToolOptions,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters.testing import Pause, Rejected, Script, ScriptedCode, ScriptedSession
from toolfx.testing._host import Host, Interpret, InterpreterFactory, ignore_progress
from toolfx.testing._scenarios_pipeline import PipelineWorld, World

__all__ = [
    "CODER",
    "OUTER",
    "TEXT",
    "Args",
    "CodeModeScenarios",
    "CodeModeWorld",
    "CodeWorld",
    "Coder",
    "Program",
    "Ran",
    "caught",
    "details",
    "shouting",
]

CODER: Final = "coder"
"""The scope presented as `code` the programs run in."""

OUTER: Final = "outer"
"""The call id of the outer `run_code` call."""

TEXT: Final = "result = await shout(text='hi')"
"""The program text each scenario's script stands for (unless it names another)."""

Program = Generator[Pause, object, object]
"""A running script."""


class Args(TypedDict):
    text: str


@dataclass
class Ran:
    """One `run_code` call: its result, the engine's session (if it started one), the records."""

    result: ToolExecutionResult
    session: ScriptedSession | None
    records: list[SessionRecord]

    @property
    def value(self) -> object:
        """The program's value (the run must have succeeded)."""
        assert isinstance(self.result, ToolExecutionSuccess), self.result
        return self.result.value

    @property
    def failure(self) -> ToolExecutionFailure:
        """The run's failure (it must have failed)."""
        assert isinstance(self.result, ToolExecutionFailure), self.result
        return self.result


@dataclass
class CodeWorld:
    """The tools the programs reach, and what their bodies saw."""

    world: World
    bodies: list[str] = field(default_factory=list)
    """The text of every body run, in order."""
    running: list[str] = field(default_factory=list)
    events: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    """Each body's entering and leaving: (`in`/`out`, its text, the bodies running then)."""


@dataclass
class Coder:
    """Runs `run_code` in the `coder` scope with a scripted engine the interpreter is built on."""

    world: World
    factory: InterpreterFactory

    def run(
        self,
        script: Script | Rejected,
        *,
        text: str = TEXT,
        limits: CodeLimits | None = None,
        signal: CancelSignal | None = None,
        scope: str = CODER,
        root_call_id: str | None = None,
    ) -> Ran:
        """Run `run_code` with the program `text` (the engine's script stands for `TEXT`) through
        the pipeline with an engine of `limits`, keeping its records."""
        engine = ScriptedCode({TEXT: script}, limits=CodeLimits() if limits is None else limits)
        host = Host(self.world.approve, self._report, ignore_progress, code=engine)
        call = ToolCall(
            OUTER, RUN_CODE, {"code": text}, signal or CancelSignal(), root_call_id=root_call_id
        )
        records: list[SessionRecord] = []
        catalog = self.world.location.catalog(scope)
        result = self.factory(host).run(execute(catalog, call, records.append))
        assert isinstance(result, ToolExecutionSuccess | ToolExecutionFailure)
        session = engine.sessions[0] if engine.sessions else None
        return Ran(result, session, records)

    def _report(self, error: BaseException, where: str) -> None:
        self.world.reported.append(where)


def caught(error: Exception) -> list[str]:
    """What a program keeps of an exception it caught: its type name and message."""
    return [type(error).__name__, str(error)]


def register_code_tools(code: CodeWorld) -> None:
    """`shout` (counted), `read` (parallel-safe), `write` (exclusive) and `native` (outside
    Code Mode), in a `coder` scope presented as code."""
    location = code.world.location

    async def body(args: Args, ctx: ToolRunContext) -> str:
        code.bodies.append(args["text"])
        code.events.append(("in", args["text"], tuple(code.running)))
        code.running.append(args["text"])
        for _ in range(3):  # the bodies running beside it get their turns
            await ctx.runtime.checkpoint()
        code.running.remove(args["text"])
        code.events.append(("out", args["text"], tuple(code.running)))
        return args["text"].upper()

    for name, safe in (("shout", False), ("read", True), ("write", False)):
        location.register(
            define_tool(
                name=name,
                description=f"{name} a text",
                parameters=Args,
                output=Output(str),
                execute=body,
                is_concurrency_safe=(lambda args: True) if safe else None,
            )
        )
    location.register(
        define_tool(
            name="native",
            description="a tool outside Code Mode",
            parameters=Args,
            output=Output(str),
            execute=body,
            options=ToolOptions(codemode=False),
        )
    )
    location.add_scope(CODER)
    location.present_as(CODER, "code")


def shouting(*texts: str) -> Script:
    """A program that shouts each text in turn and returns what it got."""

    def script() -> Program:
        said = []
        for text in texts:
            said.append((yield Pause.call("shout", text=text)))
        return said

    return script


def details(ran: Ran) -> object:
    """The failure's machine-readable details."""
    return ran.failure.error.info.details


class CodeModeWorld(PipelineWorld):
    """The `code` and `coder` fixtures of the Code Mode scenarios (and the pipeline's)."""

    @pytest.fixture
    def code(self, world: World) -> CodeWorld:
        """The tools the programs reach, in the `coder` scope."""
        tools = CodeWorld(world)
        register_code_tools(tools)
        return tools

    @pytest.fixture
    def coder(self, world: World, interpreter_factory: InterpreterFactory) -> Coder:
        """Runs programs with a scripted engine under the interpreter under test."""
        return Coder(world, interpreter_factory)


class CodeModeScenarios(CodeModeWorld):
    """A program's tool calls as sub-dispatches: ids, tokens, policy, answers, scheduling."""

    def test_the_programs_value_output_and_summary_are_the_result(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        def script() -> Program:
            said = yield Pause.call("shout", text="hi")
            yield Pause.emit("said it\n")
            return {"said": said, "n": 1.5}

        ran = coder.run(script)
        assert ran.value == {"said": "HI", "n": 1.5}
        assert ran.result.content[0] == TextBlock("said it\n")
        assert ran.result.meta == {"calls": 1, "failed": 0}
        assert ran.session is not None
        assert ran.session.closed
        assert "async def shout(" in ran.session.program.stubs
        assert {"shout", "read", "write"} <= ran.session.program.functions

    def test_sub_calls_take_code_ids_the_outer_root_and_its_token_as_parent(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        seen: list[ToolExecution] = []
        wrapped: list[ToolExecution] = []

        async def note(execution: ToolExecution, next_: Any) -> PreToolDecision:
            seen.append(execution)
            decision: PreToolDecision = await next_()
            return decision

        async def wrap(execution: ToolExecution, next_: Any) -> ToolExecutionResult:
            wrapped.append(execution)
            result: ToolExecutionResult = await next_(execution)
            return result

        def script() -> Program:
            first = yield Pause.call("shout", text="a")
            rest = yield Pause.gather(Pause.call("read", text="b"), Pause.call("read", text="c"))
            return [first, rest]

        code.world.location.on_pre_execute(note)
        code.world.location.wrap_execute(wrap)
        ran = coder.run(script, root_call_id="turn-1")
        assert ran.value == ["A", ["B", "C"]]
        outer, *unordered = seen
        subs = sorted(unordered, key=lambda execution: execution.call_id)  # gathered: any order
        assert (outer.name, outer.call_id, outer.parent) == (RUN_CODE, OUTER, None)
        assert [s.call_id for s in subs] == [f"{OUTER}:code:{n}" for n in (1, 2, 3)]
        assert [s.root_call_id for s in seen] == ["turn-1"] * 4
        assert all(s.parent is outer.token for s in subs)
        assert all(s.agent == CODER for s in seen)
        assert {w.token for w in wrapped[1:]} == {s.token for s in subs}
        assert all(w.parent is outer.token for w in wrapped[1:])
        observed = [(e.call_id, e.parent) for e, _ in code.world.observed]
        assert observed[-1] == (OUTER, None)
        assert sorted(observed[:-1], key=str) == [(s.call_id, outer.token) for s in subs]

    @pytest.mark.parametrize("reply", ["allowed-once", "rejected"])
    def test_an_ask_inside_a_program_runs_the_call_only_when_allowed(
        self, code: CodeWorld, coder: Coder, reply: ApprovalReply
    ) -> None:
        async def ask(execution: ToolExecution, next_: Any) -> PreToolDecision:
            if execution.name == "shout":
                return Ask("shouting is loud")
            decision: PreToolDecision = await next_()
            return decision

        def script() -> Program:
            try:
                return (yield Pause.call("shout", text="hi"))
            except PermissionError as error:
                return caught(error)

        code.world.location.on_pre_execute(ask)
        code.world.approvals.append(reply)
        ran = coder.run(script)
        [request] = code.world.asked
        assert (request.call_id, request.tool, request.agent) == (f"{OUTER}:code:1", "shout", CODER)
        if reply == "allowed-once":
            assert (ran.value, code.bodies) == ("HI", ["hi"])
        else:
            assert code.bodies == []
            assert isinstance(ran.value, list)
            assert ran.value[0] == "PermissionError"
            assert "DENIED" in ran.value[1]
            assert "shouting is loud" in ran.value[1]
            assert ran.result.meta == {"calls": 1, "failed": 1}

    def test_a_guard_denies_one_sub_call_and_the_program_catches_it(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        def no_secrets(execution: ToolExecution) -> str | None:
            arguments = execution.arguments
            secret = isinstance(arguments, dict) and arguments.get("text") == "secret"
            return "secrets stay unsaid" if secret else None

        def script() -> Program:
            said = yield Pause.call("shout", text="hi")
            try:
                yield Pause.call("shout", text="secret")
            except PermissionError as error:
                return [said, caught(error)]
            return "not denied"

        code.world.location.guard(no_secrets)
        ran = coder.run(script)
        assert isinstance(ran.value, list)
        said, (raised, message) = ran.value
        assert (said, raised) == ("HI", "PermissionError")
        assert "`shout` failed (DENIED)" in message
        assert "secrets stay unsaid" in message
        assert code.bodies == ["hi"]

    def test_each_failure_raises_its_exception_in_the_program(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        async def stuck(args: Args, ctx: ToolRunContext) -> str:
            await ctx.runtime.sleep(30, ctx.signal)
            return "woke"

        def refuse(args: Args, ctx: ToolRunContext) -> Result[str, ToolFailure]:
            return Failure(ToolFailure("nothing to say"))

        for name, body, timeout in (("stuck", stuck, 0.05), ("refuse", refuse, None)):
            code.world.location.register(
                define_tool(
                    name=name,
                    description=name,
                    parameters=Args,
                    output=Output(str),
                    execute=body,
                    timeout=timeout,
                )
            )
        calls = (
            Pause.call("whisper", text="hi"),
            Pause.call("native", text="hi"),
            Pause.call("shout", text=3),
            Pause.call("shout", "hi"),
            Pause.call("stuck", text="hi"),
            Pause.call("refuse", text="hi"),
        )

        def script() -> Program:
            raised = []
            for call in calls:
                try:
                    yield call
                except Exception as error:
                    raised.append(caught(error))
            return raised

        ran = coder.run(script)
        assert isinstance(ran.value, list)
        assert [kind for kind, _ in ran.value] == [
            "NameError",
            "NameError",
            "TypeError",
            "TypeError",
            "TimeoutError",
            "RuntimeError",
        ]
        said = [message for _, message in ran.value]
        assert said[:2] == ["name 'whisper' is not a tool", "name 'native' is not a tool"]
        assert said[3] == "`shout` takes keyword arguments only"  # refused, never dispatched
        for message, code_name in zip(said[4:], ("TOOL_TIMEOUT", "TOOL_ERROR"), strict=True):
            assert f"({code_name})" in message
        assert "(INVALID_ARGS)" in said[2]
        assert ran.result.meta == {"calls": 3, "failed": 3}
        assert code.bodies == []

    def test_gathered_calls_run_like_a_batch_within_the_parallel_limit(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        names = ("read", "read", "read", "write", "read", "read")

        def script() -> Program:
            gathered = [Pause.call(name, text=f"{n}") for n, name in enumerate(names)]
            return (yield Pause.gather(*gathered))

        ran = coder.run(script, limits=CodeLimits(parallel_calls=2))
        assert ran.value == [f"{n}" for n in range(6)]
        entered = {text: beside for kind, text, beside in code.events if kind == "in"}
        assert entered["3"] == ()  # the exclusive call runs alone
        assert all("3" not in beside for _, _, beside in code.events)
        assert max(len(beside) for _, _, beside in code.events) <= 1  # at most two at once
        order = [(kind, text) for kind, text, _ in code.events]
        before, after = order.index(("in", "3")), order.index(("out", "3"))
        assert {text for kind, text in order[:before] if kind == "out"} == {"0", "1", "2"}
        assert {text for _, text in order[after:]} == {"3", "4", "5"}

    def test_a_program_reaches_only_the_scopes_code_mode_tools_and_a_model_only_run_code(
        self, code: CodeWorld, coder: Coder, interpret: Interpret
    ) -> None:
        def script() -> Program:
            try:
                yield Pause.call("native", text="hi")
            except NameError as error:
                return caught(error)
            return "reached"

        ran = coder.run(script)
        assert ran.value == ["NameError", "name 'native' is not a tool"]
        assert ran.session is not None
        assert ran.session.program.functions == {"read", "shout", "write"}
        direct = interpret(
            execute(
                code.world.location.catalog(CODER),
                ToolCall("direct", "shout", {"text": "hi"}, CancelSignal()),
            )
        )
        assert isinstance(direct, ToolExecutionFailure)
        assert direct.error.code is ErrorCode.UNKNOWN_TOOL
        assert direct.error.message == "Unknown tool `shout`. Available tools: native, run_code."
