"""Code Mode log scenarios: the dispatch-log waterfall and the durable records of a program.

Each settled sub-dispatch goes through the `code_dispatch_log` listeners (which may replace only
the logged copy of its content; a raising one falls back to the original and is reported; an
agent-scoped one sees only its agent's dispatches), then into a `tool/code-dispatch` record that
closes the sub-call's `tool/call`. The program and the model see the real result throughout.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from toolfx.core.codemode import RUN_CODE
from toolfx.core.records import (
    ToolCallRecord,
    ToolCodeDispatchRecord,
    ToolResultRecord,
    record_from_json,
)
from toolfx.core.tools import CodeDispatchLog, ContentBlock, TextBlock
from toolfx.interpreters.testing import Pause
from toolfx.testing._scenarios_codemode import (
    CODER,
    OUTER,
    CodeModeWorld,
    Coder,
    CodeWorld,
    Program,
    shouting,
)

__all__ = ["CodeLogScenarios"]

Next = Callable[[], Awaitable[tuple[ContentBlock, ...]]]


def dispatches(records: object) -> list[ToolCodeDispatchRecord]:
    """The `tool/code-dispatch` records among `records`, in order."""
    assert isinstance(records, list)
    return [record for record in records if isinstance(record, ToolCodeDispatchRecord)]


class CodeLogScenarios(CodeModeWorld):
    """The dispatch-log waterfall and the records of `run_code` calls."""

    def test_a_log_listener_replaces_only_the_logged_copy(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        seen: list[CodeDispatchLog] = []

        async def outer(log: CodeDispatchLog, next_: Next) -> tuple[ContentBlock, ...]:
            seen.append(log)
            inner = await next_()
            return (*inner, TextBlock("(logged)"))

        async def inner(log: CodeDispatchLog, next_: Next) -> tuple[ContentBlock, ...]:
            kept = await next_()
            assert kept == log.content
            return (TextBlock(f"{log.name} said something"),)

        code.world.location.on_code_dispatch_log(outer)
        code.world.location.on_code_dispatch_log(inner)
        ran = coder.run(shouting("hi"))
        assert ran.value == ["HI"]
        [log] = seen
        assert (log.sub_call_id, log.name, log.is_error, log.agent) == (
            f"{OUTER}:code:1",
            "shout",
            False,
            CODER,
        )
        assert log.content == (TextBlock("HI"),)
        assert (log.execution.name, log.execution.call_id) == (RUN_CODE, OUTER)
        [record] = dispatches(ran.records)
        assert record.content == (TextBlock("shout said something"), TextBlock("(logged)"))
        assert [o.content for e, o in code.world.observed if e.call_id.endswith(":1")] == [
            (TextBlock("HI"),)
        ]

    def test_a_raising_log_listener_is_reported_and_the_original_is_logged(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        async def broken(log: CodeDispatchLog, next_: Next) -> tuple[ContentBlock, ...]:
            raise ValueError("log listener bug")

        async def wrong(log: CodeDispatchLog, next_: Next) -> tuple[ContentBlock, ...]:
            return ("not a block",)  # type: ignore[return-value]  # what a buggy listener does

        code.world.location.on_code_dispatch_log(broken)
        ran = coder.run(shouting("hi"))
        assert ran.value == ["HI"]
        assert [r.content for r in dispatches(ran.records)] == [(TextBlock("HI"),)]
        assert code.world.reported == [f"a code-dispatch-log listener (logging {OUTER}:code:1)"]
        code.world.reported.clear()
        code.world.location.on_code_dispatch_log(wrong, CODER)
        code.world.location.on_code_dispatch_log(lambda log, next_: next_(), CODER)
        assert [r.content for r in dispatches(coder.run(shouting("hi")).records)] == [
            (TextBlock("HI"),)
        ]
        assert len(code.world.reported) == 1

    def test_an_agent_scoped_log_listener_sees_only_its_agents_dispatches(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        heard: dict[str, list[str | None]] = {"global": [], CODER: [], "other": []}

        def listener(
            key: str,
        ) -> Callable[[CodeDispatchLog, Next], Awaitable[tuple[ContentBlock, ...]]]:
            async def hear(log: CodeDispatchLog, next_: Next) -> tuple[ContentBlock, ...]:
                heard[key].append(log.agent)
                return await next_()

            return hear

        location = code.world.location
        location.add_scope("other")
        location.present_as("other", "code")
        location.on_code_dispatch_log(listener("global"))
        location.on_code_dispatch_log(listener(CODER), CODER)
        location.on_code_dispatch_log(listener("other"), "other")
        coder.run(shouting("a", "b"))
        coder.run(shouting("c"), scope="other")
        assert heard == {
            "global": [CODER, CODER, "other"],
            CODER: [CODER, CODER],
            "other": ["other"],
        }

    def test_each_sub_call_is_a_tool_call_closed_by_its_code_dispatch(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        def script() -> Program:
            first = yield Pause.call("shout", text="a")
            try:
                yield Pause.call("shout", text=2)
            except TypeError as error:
                return [first, type(error).__name__]
            return "not raised"

        ran = coder.run(script, root_call_id="turn-1")
        assert ran.value == ["A", "TypeError"]
        events = [(r.event, r.call_id) for r in ran.records]
        assert events == [
            ("tool/call", OUTER),
            ("tool/call", f"{OUTER}:code:1"),
            ("tool/code-dispatch", f"{OUTER}:code:1"),
            ("tool/call", f"{OUTER}:code:2"),
            ("tool/code-dispatch", f"{OUTER}:code:2"),
            ("tool/result", OUTER),
        ]
        calls = [r for r in ran.records if isinstance(r, ToolCallRecord)]
        assert [(c.root_call_id, c.parent_call_id, c.agent) for c in calls] == [
            ("turn-1", None, CODER),
            ("turn-1", OUTER, CODER),
            ("turn-1", OUTER, CODER),
        ]
        assert calls[1].arguments == {"text": "a"}
        first, second = dispatches(ran.records)
        assert (first.parent_call_id, first.name, first.is_error) == (OUTER, "shout", False)
        assert (second.name, second.is_error) == ("shout", True)
        wire = second.to_json()
        assert isinstance(wire, Mapping)
        assert (wire["event"], wire["parentCallId"]) == ("tool/code-dispatch", OUTER)
        assert [record_from_json(r.to_json()).unwrap() for r in ran.records] == ran.records
        result = ran.records[-1]
        assert isinstance(result, ToolResultRecord)
        assert result.result.meta == {"calls": 2, "failed": 1}

    def test_gathered_sub_calls_each_get_one_call_and_one_dispatch_record(
        self, code: CodeWorld, coder: Coder
    ) -> None:
        def script() -> Program:
            texts = ("a", "b", "c")
            return (yield Pause.gather(*(Pause.call("read", text=t) for t in texts)))

        ran = coder.run(script)
        assert ran.value == ["A", "B", "C"]
        subs = [f"{OUTER}:code:{n}" for n in (1, 2, 3)]
        for sub in subs:
            events = [r.event for r in ran.records if r.call_id == sub]
            assert events == ["tool/call", "tool/code-dispatch"]
        assert [r.event for r in (ran.records[0], ran.records[-1])] == ["tool/call", "tool/result"]
        assert len(ran.records) == 2 + 2 * len(subs)
