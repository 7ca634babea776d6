"""A toolfx catalog as Agents SDK function tools: real agent runs on the SDK's scripted model."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, TypedDict

import anyio
import pytest
from agents import Agent, FunctionTool, RunConfig, Runner, ToolOutputImage, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message, function_call
from agents.tool_context import ToolContext

from toolfx.core import (
    ApprovalReply,
    ApprovalRequest,
    ErrorCode,
    ImageBlock,
    Location,
    Output,
    SessionRecord,
    TextBlock,
    ToolCallRecord,
    ToolResultRecord,
    ToolRunContext,
    WithContent,
    define_tool,
    openai_chat,
)
from toolfx.interpreters import AnyioRuntime
from toolfx.interpreters.openai_agents import function_tools
from toolfx.leaves import Permissions, Rule, Workspace, workspace_tools

if TYPE_CHECKING:
    from pathlib import Path

    from agents.result import RunResult, RunResultStreaming
    from agents.run_state import RunState

    from toolfx.core import ToolExecution

set_tracing_disabled(True)


class Note(TypedDict):
    text: str


def _location(root: Path, rules: Permissions | None = None) -> Location:
    location = Location()
    for leaf in workspace_tools(Workspace(str(root), rules)):
        location.register(leaf)
    return location


def _agent(model: ScriptedModel, tools: list[FunctionTool]) -> Agent[None]:
    return Agent(name="toolfx", model=model, tools=list(tools))


def _run(agent: Agent[None], given: str | RunState[None]) -> RunResult:
    async def go() -> RunResult:
        return await Runner.run(agent, given, run_config=RunConfig(tracing_disabled=True))

    return anyio.run(go)


def _outputs(model: ScriptedModel) -> dict[str, Any]:
    """The tool outputs the model was last sent, by call id."""
    last = model.last_call
    assert last is not None
    return {
        item["call_id"]: item["output"]
        for item in last.input
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


def _interruptions(result: RunResult) -> dict[str, Any]:
    return {item.raw_item.call_id: item for item in result.interruptions}  # type: ignore[union-attr]


def _results(records: list[SessionRecord], call_id: str) -> list[str]:
    """The codes (or "ok") of the `tool/result` records of one call, in order."""
    return [
        "ok" if record.result.error is None else record.result.error.code.value
        for record in records
        if isinstance(record, ToolResultRecord) and record.call_id == call_id
    ]


def test_a_run_allows_denies_approves_rejects_and_refuses_bad_arguments(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    location = _location(tmp_path, Permissions([Rule("edit", "locked.txt", "deny")]))
    guarded: list[str] = []

    def guard(execution: ToolExecution) -> None:
        guarded.append(execution.call_id)

    location.guard(guard)
    records: list[SessionRecord] = []
    model = ScriptedModel(
        [
            [
                function_call("read", {"path": "notes.txt"}, call_id="c-read"),
                function_call("write", {"path": "locked.txt", "content": "x"}, call_id="c-deny"),
                function_call("write", {"path": "a.txt", "content": "A"}, call_id="c-ok"),
                function_call("write", {"path": "b.txt", "content": "B"}, call_id="c-no"),
                function_call("read", {"path": 5}, call_id="c-bad"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = _agent(model, function_tools(location, sink=records.append))
    first = _run(agent, "edit some files")
    pending = _interruptions(first)
    assert sorted(pending) == ["c-no", "c-ok"]
    assert not (tmp_path / "a.txt").exists()
    state = first.to_state()
    state.approve(pending["c-ok"])
    state.reject(pending["c-no"])
    second = _run(agent, state)
    assert second.final_output == "done"
    assert second.interruptions == []
    assert _outputs(model) == {
        "c-read": "     1\thello",
        "c-deny": "DENIED: Denied: permission 'edit' declined: a rule denies locked.txt",
        "c-ok": "Created a.txt (1 line)",
        "c-no": "Tool execution was not approved.",
        "c-bad": "INVALID_ARGS: Invalid arguments for tool `read`: 1 problem\n"
        "- /path: expected string, found integer 5",
    }
    assert (tmp_path / "a.txt").read_text() == "A"
    assert not (tmp_path / "b.txt").exists()
    # the held call ended ABORTED before its effect; approved, it ran once more, to its end
    assert _results(records, "c-ok") == ["ABORTED", "ok"]
    assert _results(records, "c-no") == ["ABORTED"]
    assert _results(records, "c-read") == ["ok"]
    assert sorted(guarded) == ["c-bad", "c-deny", "c-no", "c-ok", "c-ok", "c-read"]


def test_a_call_that_asks_nothing_runs_once_and_needs_no_approval() -> None:
    ran: list[str] = []

    def note(args: Note, ctx: ToolRunContext) -> str:
        ran.append(args["text"])
        return f"noted {args['text']}"

    location = Location()
    location.register(
        define_tool(
            name="note", description="Note", parameters=Note, output=Output(str), execute=note
        )
    )
    model = ScriptedModel(
        [[function_call("note", {"text": "hi"}, call_id="n1")], [assistant_message("ok")]]
    )
    result = _run(_agent(model, function_tools(location)), "note")
    assert result.interruptions == []
    assert ran == ["hi"]
    assert _outputs(model) == {"n1": "noted hi"}


def test_a_later_ask_of_an_approved_call_is_answered_by_that_approval(tmp_path: Path) -> None:
    root, outside = tmp_path / "ws", tmp_path / "out"
    root.mkdir()
    outside.mkdir()
    asked: list[str] = []

    def approvals(request: ApprovalRequest) -> ApprovalReply:
        asked.append(request.permission)
        return "rejected"

    location = _location(root)
    model = ScriptedModel(
        [
            [function_call("write", {"path": str(outside / "x.txt"), "content": "X"}, call_id="w")],
            [assistant_message("written")],
        ]
    )
    agent = _agent(model, function_tools(location, runtime=lambda: AnyioRuntime(approvals)))
    first = _run(agent, "write outside")
    state = first.to_state()
    state.approve(_interruptions(first)["w"])
    second = _run(agent, state)
    assert second.interruptions == []
    assert (outside / "x.txt").read_text() == "X"
    assert asked == []  # every ask went to the SDK's approval, none to the runtime's


def test_strict_schemas_reach_the_sdk_as_toolfx_made_them_and_their_nulls_are_undone(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.txt").write_text("one\ntwo\n")
    location = _location(tmp_path)
    tools = function_tools(location)
    functions: list[Any] = [tool["function"] for tool in openai_chat.tools(location.catalog())]
    exported = {function["name"]: function for function in functions}
    for tool in tools:
        assert tool.params_json_schema == exported[tool.name]["parameters"]
        assert tool.strict_json_schema is exported[tool.name]["strict"]
    assert exported["read"]["strict"] is True
    # strict mode sends every property, an omitted one as null
    arguments = dict.fromkeys(exported["read"]["parameters"]["required"]) | {"path": "notes.txt"}
    model = ScriptedModel(
        [[function_call("read", arguments, call_id="r")], [assistant_message("read")]]
    )
    _run(_agent(model, tools), "read")
    assert _outputs(model) == {"r": "     1\tone\n     2\ttwo"}


def test_arguments_that_are_not_json_get_toolfx_s_invalid_args_once_the_sdk_lets_them_run(
    tmp_path: Path,
) -> None:
    records: list[SessionRecord] = []
    model = ScriptedModel(
        [[function_call("read", '{"path": ', call_id="j")], [assistant_message("sorry")]]
    )
    agent = _agent(model, function_tools(_location(tmp_path), sink=records.append))
    first = _run(agent, "read")
    state = first.to_state()  # the SDK asks before running what its policy cannot inspect
    state.approve(_interruptions(first)["j"])
    _run(agent, state)
    output = _outputs(model)["j"]
    assert output.startswith("INVALID_ARGS: The arguments for `read` are not JSON: ")
    assert [type(record) for record in records] == [ToolCallRecord, ToolResultRecord]
    assert _results(records, "j") == ["INVALID_ARGS"]


def test_a_location_s_catalog_is_taken_fresh_for_every_call() -> None:
    location = Location()
    remove = location.register(
        define_tool(
            name="echo",
            description="Echo",
            parameters=Note,
            output=Output(str),
            execute=lambda args, ctx: args["text"],
        )
    )
    (echo,) = function_tools(location)
    assert anyio.run(_invoke, echo, "e1", '{"text": "hi"}') == "hi"
    location.guard(lambda execution: "echoes are paused")  # added after the tools were made
    assert anyio.run(_invoke, echo, "e2", '{"text": "hi"}') == "DENIED: Denied: echoes are paused"
    remove()
    assert anyio.run(_invoke, echo, "e3", '{"text": "hi"}').startswith("UNKNOWN_TOOL: ")


def test_always_approved_tools_run_their_asks_without_interrupting(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            [function_call("write", {"path": "a.txt", "content": "A"}, call_id="w1")],
            [assistant_message("one")],
            [function_call("write", {"path": "b.txt", "content": "B"}, call_id="w2")],
            [assistant_message("two")],
        ]
    )
    agent = _agent(model, function_tools(_location(tmp_path)))
    first = _run(agent, "write a")
    state = first.to_state()
    state.approve(_interruptions(first)["w1"], always_approve=True)
    second = _run(agent, state)
    assert second.final_output == "one"
    third = _run(agent, second.to_state())  # the same run goes on: its approvals hold
    assert third.interruptions == []
    assert third.final_output == "two"
    assert (tmp_path / "b.txt").read_text() == "B"


async def _invoke(tool: FunctionTool, call_id: str, arguments: str) -> Any:
    context = ToolContext(None, tool_name=tool.name, tool_call_id=call_id, tool_arguments=arguments)
    return await tool.on_invoke_tool(context, arguments)


def test_outside_a_run_the_runtime_s_approvals_answer_and_images_reach_the_sdk(
    tmp_path: Path,
) -> None:
    def plot(args: Note, ctx: ToolRunContext) -> WithContent[str]:
        return WithContent("plotted", (TextBlock("a chart"), ImageBlock("AAAA", "image/png")))

    location = _location(tmp_path)
    location.register(
        define_tool(
            name="plot", description="Plot", parameters=Note, output=Output(str), execute=plot
        )
    )
    tools = {
        tool.name: tool
        for tool in function_tools(location, runtime=lambda: AnyioRuntime(lambda r: "rejected"))
    }
    written = anyio.run(_invoke, tools["write"], "w", '{"path": "a.txt", "content": "A"}')
    assert written.startswith(f"{ErrorCode.DENIED.value}: ")
    assert not (tmp_path / "a.txt").exists()
    plotted = anyio.run(_invoke, tools["plot"], "p", '{"text": "x"}')
    assert plotted[0].text == "a chart"
    assert plotted[1] == ToolOutputImage(image_url="data:image/png;base64,AAAA")


def test_a_number_json_cannot_keep_is_invalid_args_without_an_interruption(
    tmp_path: Path,
) -> None:
    model = ScriptedModel(
        [
            [function_call("read", '{"path": "a.txt", "limit": 1e400}', call_id="big")],
            [assistant_message("sorry")],
        ]
    )
    result = _run(_agent(model, function_tools(_location(tmp_path))), "read")
    assert result.interruptions == []
    output = _outputs(model)["big"]
    assert output.startswith("INVALID_ARGS: ")
    assert "finite" in output


def test_a_streamed_run_interrupts_and_resumes_the_same_way(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            [function_call("write", {"path": "s.txt", "content": "S"}, call_id="s")],
            [assistant_message("streamed")],
        ]
    )
    agent = _agent(model, function_tools(_location(tmp_path)))

    async def streamed(given: str | RunState[None]) -> RunResultStreaming:
        result = Runner.run_streamed(agent, given, run_config=RunConfig(tracing_disabled=True))
        async for _ in result.stream_events():
            pass
        return result

    first = anyio.run(streamed, "write s.txt")
    assert not (tmp_path / "s.txt").exists()
    state = first.to_state()
    state.approve(first.interruptions[0])
    assert anyio.run(streamed, state).final_output == "streamed"
    assert (tmp_path / "s.txt").read_text() == "S"


def test_blank_argument_text_is_an_empty_object() -> None:
    class Maybe(TypedDict, total=False):
        text: str

    location = Location()
    location.register(
        define_tool(
            name="maybe",
            description="Maybe",
            parameters=Maybe,
            output=Output(str),
            execute=lambda args, ctx: f"got {dict(args)}",
        )
    )
    (maybe,) = function_tools(location)
    assert anyio.run(_invoke, maybe, "m1", "") == "got {}"
    assert anyio.run(_invoke, maybe, "m2", " \n") == "got {}"


def _failing_location() -> Location:
    async def fail(args: Note, ctx: ToolRunContext) -> str:
        if args["text"] != "now":  # asks first: approved, the call runs from `on_invoke_tool`
            request = ApprovalRequest(
                ctx.call_id, ctx.name, ctx.agent, ctx.name, ("*",), "asks", ctx.arguments
            )
            if await ctx.runtime.approve(request, ctx.signal) != "allowed-once":
                return "not run"
        if args["text"] == "cancel":
            raise asyncio.CancelledError("the tool's own")
        raise RuntimeError(f"kaboom {args['text']}")

    location = Location()
    location.register(
        define_tool(
            name="fail", description="Fail", parameters=Note, output=Output(str), execute=fail
        )
    )
    return location


@pytest.mark.parametrize("text", ["now", "ask"])
def test_a_toolfx_failure_reaches_the_model_as_its_text(text: str) -> None:
    model = ScriptedModel(
        [[function_call("fail", {"text": text}, call_id="f")], [assistant_message("sorry")]]
    )
    agent = _agent(model, function_tools(_failing_location()))
    result = _run(agent, "fail")
    if text == "ask":
        state = result.to_state()
        state.approve(_interruptions(result)["f"])
        result = _run(agent, state)
    assert result.final_output == "sorry"
    told = "UNEXPECTED_ERROR: the body of `fail` failed unexpectedly: RuntimeError: kaboom"
    assert _outputs(model) == {"f": f"{told} {text}"}


def test_what_escapes_toolfx_reaches_the_run_not_the_sdk_s_generic_text() -> None:
    model = ScriptedModel(
        [[function_call("fail", {"text": "cancel"}, call_id="c")], [assistant_message("sorry")]]
    )
    agent = _agent(model, function_tools(_failing_location()))
    first = _run(agent, "fail")
    state = first.to_state()
    state.approve(_interruptions(first)["c"])
    with pytest.raises(asyncio.CancelledError):  # not "An error occurred ..." told the model
        _run(agent, state)
