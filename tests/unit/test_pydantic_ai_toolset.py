"""toolfx tools inside a real pydantic-ai agent run: the whole pipeline, asks as deferred calls."""

from __future__ import annotations

import asyncio
import base64
from typing import TYPE_CHECKING, Any, TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    DeferredToolResults,
    RunContext,
    ToolApproved,
    ToolDenied,
    ToolFailed,
)
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RunUsage

from toolfx.core import (
    ContextMessage,
    ImageBlock,
    JsonValue,
    Location,
    Output,
    TextBlock,
    ToolRunContext,
    WithContent,
    define_tool,
    text,
)
from toolfx.interpreters import AnyioRuntime
from toolfx.interpreters.pydantic_ai import ToolfxToolset, toolset
from toolfx.leaves import Permissions, Rule, Workspace, workspace_tools

if TYPE_CHECKING:
    from pathlib import Path

    from toolfx.core import (
        ApprovalReply,
        ApprovalRequest,
        Runtime,
        SessionRecord,
        ToolExecution,
        ToolExecutionResult,
    )

Turn = list[ToolCallPart]


def scripted(*turns: Turn) -> FunctionModel:
    """A model that makes the calls of each turn in order, then ends with a text reply."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        made = sum(
            1
            for message in messages
            if isinstance(message, ModelResponse)
            and any(isinstance(part, ToolCallPart) for part in message.parts)
        )
        if made < len(turns):
            return ModelResponse(parts=list(turns[made]))
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(respond)


def run(agent: Agent[None, Any], prompt: str | None = None, **options: Any) -> Any:
    """One agent run on a new event loop (pydantic-ai's `run_sync` leaves its loop open)."""
    return asyncio.run(agent.run(prompt, **options))


def returns(messages: list[ModelMessage]) -> dict[str, ToolReturnPart]:
    """The last tool return the model saw for each call id."""
    return {
        part.tool_call_id: part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }


def call(name: str, args: dict[str, Any] | str, call_id: str) -> ToolCallPart:
    return ToolCallPart(name, args, tool_call_id=call_id)


class Seen:
    """What the pipeline's observers, guards and sink saw."""

    def __init__(self, location: Location) -> None:
        self.results: list[tuple[str, str]] = []
        self.guarded: list[str] = []
        self.records: list[SessionRecord] = []
        location.on_result(self.observe)
        location.guard(self.guard)

    def observe(self, execution: ToolExecution, result: ToolExecutionResult) -> None:
        code = getattr(getattr(result, "error", None), "code", None)
        self.results.append((execution.call_id, "ok" if code is None else code.value))

    def guard(self, execution: ToolExecution) -> str | None:
        self.guarded.append(execution.call_id)
        return "grep is paused" if execution.name == "grep" else None


def workspace_location(root: Path) -> Location:
    location = Location()
    rules = Permissions([Rule("edit", "secret.txt", "deny")])
    for leaf in workspace_tools(Workspace(str(root), rules)):
        location.register(leaf)
    return location


def agent_for(location: Location, model: FunctionModel, **options: Any) -> Agent[None, Any]:
    return Agent(
        model,
        toolsets=[toolset(location, **options)],
        output_type=[str, DeferredToolRequests],
    )


def test_a_run_allows_denies_defers_and_resumes_through_the_whole_pipeline(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    location = workspace_location(tmp_path)
    seen = Seen(location)
    model = scripted(
        [
            call("read", {"path": "a.txt"}, "r1"),
            call("write", {"path": "secret.txt", "content": "x"}, "w0"),
            call("write", '{"path": "b.txt", "content": "new"}', "w1"),
            call("write", {"path": "c.txt", "content": "no"}, "w2"),
            call("grep", {"regex": "x"}, "g1"),
            call("read", "{bad", "r2"),
            call("read", {"path": 3}, "r3"),
        ]
    )
    agent = Agent(
        model,
        toolsets=[toolset(location, sink=seen.records.append)],
        output_type=[str, DeferredToolRequests],
    )
    first = run(agent, "go")
    deferred = first.output
    assert isinstance(deferred, DeferredToolRequests)
    assert [part.tool_call_id for part in deferred.approvals] == ["w1", "w2"]
    assert deferred.metadata["w1"] == {
        "tool": "write",
        "permission": "edit",
        "patterns": ["b.txt"],
        "reason": "write b.txt",
    }
    assert not (tmp_path / "b.txt").exists()
    approvals: dict[str, bool | ToolApproved | ToolDenied] = {
        "w1": True,
        "w2": ToolDenied("not c.txt"),
    }
    second = run(
        agent,
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals=approvals),
    )
    assert second.output == "done"
    seen_by_model = returns(second.all_messages())
    assert seen_by_model["r1"].content == "     1\thello"
    assert seen_by_model["w0"].outcome == "failed"
    assert seen_by_model["w0"].content == (
        "DENIED: Denied: permission 'edit' declined: a rule denies secret.txt"
    )
    assert seen_by_model["w1"].content == "Created b.txt (1 line)"
    assert seen_by_model["w2"].outcome == "denied"
    assert seen_by_model["w2"].content == "not c.txt"
    assert seen_by_model["g1"].content == "DENIED: Denied: grep is paused"
    assert str(seen_by_model["r2"].content).startswith(
        "INVALID_ARGS: The arguments for `read` are not JSON: invalid JSON"
    )
    assert seen_by_model["r3"].content == (
        "INVALID_ARGS: Invalid arguments for tool `read`: 1 problem\n"
        "- /path: expected string, found integer 3"
    )
    assert (tmp_path / "b.txt").read_text() == "new"
    assert not (tmp_path / "c.txt").exists()
    assert not (tmp_path / "secret.txt").exists()
    # w1 ran twice: cut short by the ask (before its effect), then approved; w2 never again
    assert [outcome for call_id, outcome in seen.results if call_id == "w1"] == ["ABORTED", "ok"]
    assert [outcome for call_id, outcome in seen.results if call_id == "w2"] == ["ABORTED"]
    assert {"r1", "w0", "w1", "g1", "r3"} <= set(seen.guarded)
    kinds = [type(record).__name__ for record in seen.records]
    assert kinds.count("ToolCallRecord") == kinds.count("ToolResultRecord") == 8  # r2 too, unrun


def test_each_ask_of_a_call_is_shown_once_and_its_answer_replayed(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    location = workspace_location(root)
    seen = Seen(location)
    agent = agent_for(
        location, scripted([call("write", {"path": "../out.txt", "content": "o"}, "w")])
    )
    result = run(agent, "go")
    asked = []
    for _ in range(3):
        if not isinstance(result.output, DeferredToolRequests):
            break
        asked.append(result.output.metadata["w"]["permission"])
        result = run(
            agent,
            message_history=result.all_messages(),
            deferred_tool_results=DeferredToolResults(approvals={"w": True}),
        )
    assert asked == ["external_directory", "edit"]
    assert result.output == "done"
    assert (tmp_path / "out.txt").read_text() == "o"
    assert [outcome for _, outcome in seen.results] == ["ABORTED", "ABORTED", "ok"]


def test_answers_given_in_one_conversation_are_not_replayed_in_another(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    location = workspace_location(root)
    agent = agent_for(
        location, scripted([call("write", {"path": "../out.txt", "content": "o"}, "w")])
    )
    first = run(agent, "go")
    half = run(  # its first ask (external_directory) answered, its second (edit) pending
        agent,
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"w": True}),
    )
    assert half.output.metadata["w"]["permission"] == "edit"
    other = run(agent, "go")  # a new conversation whose model reuses the call id
    assert other.output.metadata["w"]["permission"] == "external_directory"
    assert not (tmp_path / "out.txt").exists()


@pytest.mark.parametrize(("reply", "written"), [("allowed-once", True), ("rejected", False)])
def test_asks_may_go_to_the_runtime_s_own_approvals(
    tmp_path: Path, reply: ApprovalReply, written: bool
) -> None:
    location = workspace_location(tmp_path)
    asked: list[str] = []

    def approvals(request: ApprovalRequest) -> ApprovalReply:
        asked.append(request.permission)
        return reply

    model = scripted([call("write", {"path": "b.txt", "content": "x"}, "w")])
    agent = agent_for(
        location, model, asks="runtime", runtime=lambda: AnyioRuntime(approvals=approvals)
    )
    result = run(agent, "go")
    assert result.output == "done"
    assert asked == ["edit"]
    assert (tmp_path / "b.txt").exists() is written
    assert returns(result.all_messages())["w"].outcome == ("success" if written else "failed")


def test_an_approval_the_toolset_never_asked_for_shows_the_ask_again(tmp_path: Path) -> None:
    location = workspace_location(tmp_path)
    model = scripted([call("write", {"path": "b.txt", "content": "x"}, "w")])
    first = run(agent_for(location, model), "go")
    fresh = agent_for(location, model)  # a new toolset: its ledger never showed the ask
    again = run(
        fresh,
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"w": True}),
    )
    assert isinstance(again.output, DeferredToolRequests)
    assert not (tmp_path / "b.txt").exists()


class Pattern(TypedDict):
    pattern: str


def _echo(args: Pattern, ctx: ToolRunContext) -> str:
    return args["pattern"]


def echo_tool(name: str = "echo") -> Any:
    return define_tool(
        name=name, description="Echo", parameters=Pattern, output=Output(str), execute=_echo
    )


def test_a_location_is_read_fresh_a_catalog_is_fixed_and_a_scope_restricts() -> None:
    location = Location()
    location.register(echo_tool("first"))
    catalog = location.catalog()
    _ = location.add_scope("reviewer")
    _ = location.restrict("reviewer", deny=["first"])
    live, fixed = toolset(location), toolset(catalog)
    scoped = toolset(location, scope="reviewer")
    location.register(echo_tool("later"))
    ctx = run_context("c1")
    assert sorted(asyncio.run(live.get_tools(ctx))) == ["first", "later"]
    assert sorted(asyncio.run(fixed.get_tools(ctx))) == ["first"]
    assert sorted(asyncio.run(scoped.get_tools(ctx))) == ["later"]
    tool = asyncio.run(live.get_tools(ctx))["later"]
    assert tool.tool_def.parameters_json_schema == {
        "type": "object",
        "properties": {"pattern": {"type": "string"}},
        "required": ["pattern"],
        "additionalProperties": False,
    }
    assert live.id is None
    assert toolset(location, id="files").id == "files"


def test_a_tool_not_declared_parallel_safe_runs_alone(tmp_path: Path) -> None:
    tools = asyncio.run(toolset(workspace_location(tmp_path)).get_tools(run_context("c1")))
    alone = {name for name, tool in tools.items() if tool.tool_def.sequential}
    assert alone == {"bash", "edit", "write"}


def test_each_call_runs_on_a_fresh_runtime_from_the_factory() -> None:
    location = Location()
    location.register(echo_tool())
    made: list[Runtime] = []

    def runtime() -> Runtime:
        made.append(AnyioRuntime())
        return made[-1]

    model = scripted([call("echo", {"pattern": "a"}, "e1"), call("echo", {"pattern": "b"}, "e2")])
    result = run(agent_for(location, model, runtime=runtime), "go")
    assert [part.content for part in returns(result.all_messages()).values()] == ["a", "b"]
    assert len(made) == 2


def _plot(args: Pattern, ctx: ToolRunContext) -> WithContent[JsonValue]:
    ctx.defer_context(ContextMessage(text("see the chart"), "plot"))
    png = base64.b64encode(b"\x89PNG").decode()
    return WithContent(None, (TextBlock("chart"), ImageBlock(png, "image/png")))


def test_images_are_sent_as_media_and_deferred_contexts_follow_the_result() -> None:
    location = Location()
    location.register(
        define_tool(
            name="plot",
            description="Plot",
            parameters=Pattern,
            output=Output(JsonValue),
            execute=_plot,
        )
    )
    result = run(agent_for(location, scripted([call("plot", {"pattern": "."}, "p1")])), "go")
    messages = result.all_messages()
    content = returns(messages)["p1"].content
    assert content == ["chart", BinaryContent(b"\x89PNG", media_type="image/png")]
    prompts = [
        part.content
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, UserPromptPart)
    ]
    assert prompts[-1] == ["see the chart"]


def test_test_model_calls_every_tool_through_the_pipeline() -> None:
    location = Location()
    location.register(echo_tool())
    seen = Seen(location)
    agent = Agent(TestModel(), toolsets=[toolset(location)])
    assert run(agent, "go").output == '{"echo":"a"}'
    assert [outcome for _, outcome in seen.results] == ["ok"]


def run_context(call_id: str, approved: bool = False) -> RunContext[None]:
    return RunContext(
        deps=None,
        model=TestModel(),
        usage=RunUsage(),
        tool_call_id=call_id,
        tool_call_approved=approved,
    )


_ECHO = Location()
_ECHO.register(echo_tool())
_ECHO_TOOLSET = ToolfxToolset(_ECHO)


@given(st.text(max_size=40) | st.binary(max_size=40))
def test_any_argument_text_gives_a_result_or_a_failed_call_never_another_error(
    arguments: str | bytes,
) -> None:
    async def one() -> object:
        ctx = run_context("h1")
        tool = (await _ECHO_TOOLSET.get_tools(ctx))["echo"]
        validated = tool.args_validator.validate_json(arguments)
        return await _ECHO_TOOLSET.call_tool("echo", validated, ctx, tool)

    try:
        returned = asyncio.run(one())
    except ToolFailed as failed:
        returned = failed.message
        assert returned.startswith("INVALID_ARGS: ")
    assert isinstance(returned, str)


def test_a_missing_argument_object_is_an_empty_one() -> None:
    async def one() -> object:
        ctx = run_context("m1")
        tool = (await _ECHO_TOOLSET.get_tools(ctx))["echo"]
        return await _ECHO_TOOLSET.call_tool(
            "echo", tool.args_validator.validate_python(None), ctx, tool
        )

    with pytest.raises(ToolFailed, match="INVALID_ARGS: Invalid arguments for tool `echo`"):
        asyncio.run(one())
