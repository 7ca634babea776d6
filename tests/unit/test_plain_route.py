"""Which calls take the plain route (`Registration.plain`, `HookPlan.bare`, no sink),
and that what it builds on the way (a success, its text block) is the frozen value a
constructor builds (counted, not timed: the route is seen by the steps it does not take)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from tests.support import Pair, add, add_later
from toolfx.core.pipeline import ToolCall, _call, execute, run_call
from toolfx.core.registry import Location, Registration
from toolfx.core.runtime import CancelSignal, Description, RemotePlacement
from toolfx.core.tools import (
    Output,
    TextBlock,
    ToolExecutionResult,
    ToolExecutionSuccess,
    define_tool,
    render_json,
)
from toolfx.interpreters.sync import SyncRuntime, run_sync


def shown(args: Pair, value: int) -> tuple[TextBlock, ...]:
    return (TextBlock(f"sum {value}"),)


TOOLS: dict[str, dict[str, Any]] = {  # define_tool's options beyond the plain tool's
    "plain": {},
    "async body": {"execute": add_later},
    "blocking": {"blocking": True},
    "timeout": {"timeout": 60.0},
    "finalize_content": {"finalize_content": lambda execution, result: None},
    "own renderer": {"output": Output(int, render=shown)},
    "presentation meta": {"output": Output(int, presentation_meta=lambda args, value: {})},
    "remote placement": {"remote": RemotePlacement()},
}


def location(name: str) -> Location:
    options: dict[str, Any] = {"execute": add, "output": Output(int)} | TOOLS[name]
    place = Location()
    place.register(define_tool(name="add", description="Add", parameters=Pair, **options))
    return place


def registration(place: Location) -> Registration:
    return place.catalog().view.direct["add"]


PLAIN_TOOLS = ("plain", "async body")
"""The tools of `TOOLS` that are plain: a body on the caller's thread with nothing around it."""


@pytest.mark.parametrize("name", list(TOOLS))
def test_only_a_body_on_the_callers_thread_with_nothing_around_it_is_plain(name: str) -> None:
    assert registration(location(name)).plain is (name in PLAIN_TOOLS)


def test_the_code_mode_transport_is_not_plain() -> None:
    place = location("plain")
    place.add_scope("agent")
    place.present_as("agent", "both")
    assert not place.catalog("agent").view.direct["run_code"].plain


HOOKS: dict[str, Callable[[Location], object]] = {
    "guard": lambda place: place.guard(lambda execution: None),
    "observer": lambda place: place.on_result(lambda execution, result: None),
    "wrapper": lambda place: place.wrap_execute(lambda execution, next_: next_(execution)),
}


def test_a_scope_without_hooks_is_bare() -> None:
    plan = location("plain").catalog().view.plan
    assert (plan.bare, plan.around_body) == (True, False)


@pytest.mark.parametrize("hook", list(HOOKS))
def test_any_hook_or_observer_makes_the_scope_not_bare(hook: str) -> None:
    place = location("plain")
    HOOKS[hook](place)
    plan = place.catalog().view.plan
    assert not plan.bare
    assert plan.around_body is (hook != "observer")  # an observer waits for the result


@pytest.fixture
def routed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the calls that went off the plain route (`_routed_call` taken)."""
    taken: list[str] = []
    original = _call._routed_call

    def spy(*arguments: Any) -> Any:
        taken.append(arguments[2].name)  # (registration, catalog, call, ...)
        return original(*arguments)

    monkeypatch.setattr(_call, "_routed_call", spy)
    return taken


def call_of(signal: CancelSignal | None = None) -> ToolCall:
    return ToolCall("c", "add", {"a": 1, "b": 2}, signal or CancelSignal())


@pytest.mark.parametrize("name", list(TOOLS))
def test_a_call_takes_the_plain_route_exactly_when_its_tool_is_plain(
    name: str, routed: list[str]
) -> None:
    result = run_sync(execute(location(name).catalog(), call_of()), SyncRuntime())
    assert isinstance(result, ToolExecutionSuccess), result
    assert routed == ([] if name in PLAIN_TOOLS else ["add"])


@pytest.mark.parametrize("hook", list(HOOKS))
def test_a_hook_or_observer_sends_a_plain_tool_off_the_plain_route(
    hook: str, routed: list[str]
) -> None:
    place = location("plain")
    HOOKS[hook](place)
    result = run_sync(execute(place.catalog(), call_of()), SyncRuntime())
    assert isinstance(result, ToolExecutionSuccess), result
    assert routed == ["add"]


def with_sink(catalog: Any, call: ToolCall) -> Description[ToolExecutionResult]:
    records: list[object] = []
    return execute(catalog, call, records.append)


def cancelled(catalog: Any, call: ToolCall) -> Description[ToolExecutionResult]:
    call.signal.cancel("stop")
    return execute(catalog, call)


@pytest.mark.parametrize("describe", [with_sink, cancelled], ids=lambda f: f.__name__)
def test_a_sink_or_a_cancelled_signal_sends_the_call_off_the_plain_route(
    describe: Callable[[Any, ToolCall], Description[ToolExecutionResult]], routed: list[str]
) -> None:
    run_sync(describe(location("plain").catalog(), call_of()), SyncRuntime())
    assert routed == ["add"]


@pytest.mark.parametrize("name", PLAIN_TOOLS)
def test_a_kept_call_stays_on_the_plain_route_and_its_keeper_gets_the_result(
    name: str, routed: list[str]
) -> None:
    catalog, call = location(name).catalog(), call_of()
    kept: list[ToolExecutionResult] = []

    async def program(runtime: Any) -> ToolExecutionResult:
        return await run_call(runtime, catalog, call, None, kept.append)

    result = run_sync(Description(program), SyncRuntime())
    assert result == ToolExecutionSuccess(3, (TextBlock("3"),))
    assert kept == [result]
    assert kept[0] is result
    assert routed == []


def test_the_plain_success_is_a_frozen_success_equal_to_a_constructed_one() -> None:
    result = run_sync(execute(location("plain").catalog(), call_of()), SyncRuntime())
    assert type(result) is ToolExecutionSuccess
    assert result == ToolExecutionSuccess(3, (TextBlock("3"),))
    assert type(result.content[0]) is TextBlock
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.value = 4  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.content[0].text = "4"  # type: ignore[misc]


@pytest.mark.parametrize("value", [3, True, None, "text", 1.5, {"a": [1]}])
def test_the_default_renderer_builds_real_frozen_text_blocks(value: object) -> None:
    (block,) = render_json(None, value)
    assert type(block) is TextBlock
    assert block == TextBlock(block.text)
    assert hash(block) == hash(TextBlock(block.text))
    with pytest.raises(dataclasses.FrozenInstanceError):
        block.text = "changed"  # type: ignore[misc]


@pytest.mark.parametrize("name", PLAIN_TOOLS)
@pytest.mark.parametrize("hook", ["none", "observer"])
def test_a_keeper_that_raises_is_called_once_and_its_error_reaches_the_caller(
    name: str, hook: str
) -> None:
    """As on the other routes: the result is final when kept, so the keeper's error is the
    caller's own, not the call's defect."""
    place = location(name)
    if hook == "observer":  # off the plain route, for comparison
        HOOKS[hook](place)
    catalog, call, seen = place.catalog(), call_of(), []

    def keep(result: ToolExecutionResult) -> None:
        seen.append(result)
        raise LookupError("the caller's keeper")

    async def program(runtime: Any) -> ToolExecutionResult:
        return await run_call(runtime, catalog, call, None, keep)

    with pytest.raises(LookupError, match="the caller's keeper"):
        run_sync(Description(program), SyncRuntime())
    assert seen == [ToolExecutionSuccess(3, (TextBlock("3"),))]
