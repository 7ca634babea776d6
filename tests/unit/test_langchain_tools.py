"""A toolfx Location as LangChain tools: a LangGraph agent calls them through the whole pipeline."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import is_invalid_resume
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, Send
from pydantic import ValidationError

from toolfx.core import (
    ErrorCode,
    ImageBlock,
    JsonValue,
    Location,
    Output,
    RejectedWithFeedback,
    ToolApprovalRecord,
    ToolExecution,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolRunContext,
    WithContent,
    define_tool,
)
from toolfx.interpreters import AnyioRuntime
from toolfx.interpreters.langchain import AskInterrupt, tools
from toolfx.leaves import Permissions, Rule, Workspace, workspace_tools

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool
    from langgraph.graph.state import CompiledStateGraph

    from toolfx.core import ApprovalReply, ApprovalRequest, SessionRecord

Backend = Literal["asyncio", "trio"]


class ScriptedModel(GenericFakeChatModel):
    """A fake chat model that takes tools and answers with the scripted messages in turn."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self


def _turn(call_id: str, name: str, **arguments: object) -> AIMessage:
    return AIMessage("", tool_calls=[{"id": call_id, "name": name, "args": arguments}])


class Seen:
    """What the pipeline's observer, guard and sink saw."""

    def __init__(self) -> None:
        self.results: list[tuple[str, ToolExecutionResult]] = []
        self.records: list[SessionRecord] = []

    def observe(self, execution: ToolExecution, result: ToolExecutionResult) -> None:
        self.results.append((execution.call_id, result))

    def codes(self, call_id: str) -> list[ErrorCode | None]:
        return [
            result.error.code if isinstance(result, ToolExecutionFailure) else None
            for seen, result in self.results
            if seen == call_id
        ]


def _location(root: Path, seen: Seen) -> Location:
    rules = Permissions([Rule("edit", "secret.txt", "deny")])
    location = Location()
    for leaf in workspace_tools(Workspace(str(root), rules)):
        location.register(leaf)
    location.guard(lambda execution: "no searching" if execution.name == "grep" else None)
    location.on_result(seen.observe)
    return location


def _graph(agent_tools: Sequence[BaseTool], turns: Iterator[AIMessage]) -> CompiledStateGraph[Any]:
    model = ScriptedModel(messages=turns).bind_tools(agent_tools)

    def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [model.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(agent_tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=InMemorySaver())


def _thread(thread_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": thread_id}}


def _answers(messages: Sequence[BaseMessage]) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in messages if isinstance(m, ToolMessage)}


def test_an_agent_run_calls_toolfx_tools_through_the_whole_pipeline(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    seen = Seen()
    agent_tools = tools(_location(tmp_path, seen), sink=seen.records.append)
    turns = iter(
        [
            _turn("c1", "read", path="notes.txt"),
            _turn("c2", "write", path="secret.txt", content="x"),
            _turn("c3", "read", path="notes.txt", bogus=1),
            _turn("c4", "grep", regex="hello"),
            _turn("c5", "write", path="a.txt", content="approved"),
            _turn("c6", "write", path="b.txt", content="rejected"),
            _turn("c7", "write", path="c.txt", content="corrected"),
            AIMessage("done"),
        ]
    )
    graph, thread = _graph(agent_tools, turns), _thread("t1")

    state = graph.invoke({"messages": [HumanMessage("go")]}, thread)
    [asked] = state["__interrupt__"]
    assert asked.value == AskInterrupt(
        call_id="c5",
        tool="write",
        arguments={"path": "a.txt", "content": "approved"},
        permission="edit",
        patterns=["a.txt"],
        reason="write a.txt",
        always=["a.txt"],
    )
    assert not (tmp_path / "a.txt").exists()
    answers = _answers(state["messages"])
    assert answers["c1"].status == "success"
    assert answers["c1"].content == "     1\thello"
    assert answers["c2"].status == "error"
    assert answers["c2"].content == "Denied: permission 'edit' declined: a rule denies secret.txt"
    assert answers["c2"].artifact["code"] == "DENIED"
    assert answers["c3"].status == "error"
    assert str(answers["c3"].content).startswith("Invalid arguments for tool `read`")
    assert "/bogus" in str(answers["c3"].content)
    assert answers["c4"].content == "Denied: no searching"

    state = graph.invoke(Command(resume="allowed-once"), thread)
    assert (tmp_path / "a.txt").read_text() == "approved"
    assert seen.codes("c5") == [ErrorCode.ABORTED, None]  # stopped before the write, then once
    state = graph.invoke(Command(resume="rejected"), thread)
    state = graph.invoke(Command(resume={"feedback": "write d.txt instead"}), thread)
    answers = _answers(state["messages"])
    assert answers["c5"].status == "success"
    assert answers["c6"].status == "error"
    assert answers["c6"].artifact["code"] == "DENIED"
    assert answers["c7"].status == "error"
    assert "write d.txt instead" in str(answers["c7"].content)
    assert not (tmp_path / "b.txt").exists()
    assert not (tmp_path / "c.txt").exists()
    assert state["messages"][-1].content == "done"
    assert "__interrupt__" not in state
    logged = [(record.call_id, record.event) for record in seen.records]
    assert logged[:2] == [("c1", "tool/call"), ("c1", "tool/result")]
    answered = [
        (record.call_id, record.reply)
        for record in seen.records
        if isinstance(record, ToolApprovalRecord)
    ]
    feedback = RejectedWithFeedback("write d.txt instead")
    assert answered == [
        ("c5", "cancelled"),  # the graph stopped to ask its human
        ("c5", "allowed-once"),
        ("c6", "cancelled"),
        ("c6", "rejected"),
        ("c7", "cancelled"),
        ("c7", feedback),
    ]


def test_calls_of_one_turn_run_side_by_side(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    both = AIMessage(
        "",
        tool_calls=[
            {"id": "r1", "name": "read", "args": {"path": "a.txt"}},
            {"id": "r2", "name": "read", "args": {"path": "b.txt"}},
        ],
    )
    graph = _graph(tools(_location(tmp_path, Seen())), iter([both, AIMessage("done")]))
    state = graph.invoke({"messages": [HumanMessage("go")]}, _thread("t4"))
    answers = _answers(state["messages"])
    assert (answers["r1"].content, answers["r2"].content) == ("     1\ta", "     1\tb")


def _each_call_its_own_task(state: MessagesState) -> list[Send] | str:
    last = state["messages"][-1]
    if not isinstance(last, AIMessage) or not last.tool_calls:
        return END
    return [
        Send("tools", {"__type": "tool_call_with_context", "tool_call": call, "state": state})
        for call in last.tool_calls
    ]


def test_asks_of_one_turn_each_get_their_own_answer_with_a_task_per_call(tmp_path: Path) -> None:
    both = AIMessage(
        "",
        tool_calls=[
            {"id": "p1", "name": "write", "args": {"path": "a.txt", "content": "A"}},
            {"id": "p2", "name": "write", "args": {"path": "b.txt", "content": "B"}},
        ],
    )
    model = ScriptedModel(messages=iter([both, AIMessage("done")]))
    builder = StateGraph(MessagesState)
    builder.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
    builder.add_node("tools", ToolNode(tools(_location(tmp_path, Seen()))))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", _each_call_its_own_task, ["tools", END])
    builder.add_edge("tools", "agent")
    graph, thread = builder.compile(checkpointer=InMemorySaver()), _thread("t5")

    state = graph.invoke({"messages": [HumanMessage("go")]}, thread)
    shown = {asked.value["call_id"]: asked.id for asked in state["__interrupt__"]}
    assert sorted(shown) == ["p1", "p2"]
    answers = {shown["p1"]: "rejected", shown["p2"]: "allowed-once"}
    state = graph.invoke(Command(resume=answers), thread)
    assert not (tmp_path / "a.txt").exists()
    assert (tmp_path / "b.txt").read_text() == "B"
    replies = _answers(state["messages"])
    assert (replies["p1"].status, replies["p2"].status) == ("error", "success")


@pytest.fixture
def anyio_backend() -> Backend:
    """LangGraph's async runs are asyncio's."""
    return "asyncio"


@pytest.mark.anyio
async def test_an_async_agent_run_interrupts_and_resumes(tmp_path: Path) -> None:
    seen = Seen()
    turns = iter([_turn("w1", "write", path="a.txt", content="async"), AIMessage("done")])
    graph, thread = _graph(tools(_location(tmp_path, seen)), turns), _thread("t2")
    state = await graph.ainvoke({"messages": [HumanMessage("go")]}, thread)
    assert [asked.value["call_id"] for asked in state["__interrupt__"]] == ["w1"]
    state = await graph.ainvoke(Command(resume="allowed-always"), thread)
    assert (tmp_path / "a.txt").read_text() == "async"
    assert _answers(state["messages"])["w1"].status == "success"


def test_a_resume_value_of_another_shape_is_refused_and_can_be_answered_again(
    tmp_path: Path,
) -> None:
    turns = iter([_turn("w1", "write", path="a.txt", content="x"), AIMessage("done")])
    graph, thread = _graph(tools(_location(tmp_path, Seen())), turns), _thread("t3")
    graph.invoke({"messages": [HumanMessage("go")]}, thread)
    with pytest.raises(ValidationError) as refused:
        graph.invoke(Command(resume="yes please"), thread)
    assert is_invalid_resume(refused.value)
    assert not (tmp_path / "a.txt").exists()
    state = graph.invoke(Command(resume="allowed-once"), thread)
    assert _answers(state["messages"])["w1"].status == "success"


def _approving(replies: list[ApprovalReply], asked: list[str]) -> AnyioRuntime:
    def approvals(request: ApprovalRequest) -> ApprovalReply:
        asked.append(request.permission)
        return replies.pop(0)

    return AnyioRuntime(approvals)


def _write_call(call_id: str, path: str) -> dict[str, object]:
    arguments = {"path": path, "content": "x"}
    return {"type": "tool_call", "id": call_id, "name": "write", "args": arguments}


def test_outside_langgraph_the_runtime_s_approvals_answer(tmp_path: Path) -> None:
    asked: list[str] = []
    replies: list[ApprovalReply] = ["allowed-once", "rejected"]
    write = _by_name(tools(_location(tmp_path, Seen()), runtime=lambda: _approving(replies, asked)))
    done = write.invoke(_write_call("o1", "a.txt"))
    refused = write.invoke(_write_call("o2", "b.txt"))
    assert asked == ["edit", "edit"]
    assert (done.status, refused.status) == ("success", "error")
    assert (tmp_path / "a.txt").exists()
    assert not (tmp_path / "b.txt").exists()


def test_a_graph_with_no_checkpointer_leaves_asks_to_the_runtime(tmp_path: Path) -> None:
    asked: list[str] = []
    location = _location(tmp_path, Seen())
    agent_tools = tools(location, runtime=lambda: _approving(["allowed-once"], asked))
    builder = StateGraph(MessagesState)
    builder.add_node("tools", ToolNode(agent_tools))
    builder.add_edge(START, "tools")
    call = _turn("n1", "write", path="a.txt", content="x")
    state = builder.compile().invoke({"messages": [call]})
    assert asked == ["edit"]
    assert _answers(state["messages"])["n1"].status == "success"


def test_invoked_with_arguments_alone_it_answers_with_the_content(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    read = _by_name(tools(_location(tmp_path, Seen())), "read")
    assert read.invoke({"path": "notes.txt"}) == "     1\thello"
    assert str(read.invoke({"path": 3})).startswith("Invalid arguments for tool `read`")
    assert str(read.invoke("notes.txt")).startswith("Invalid arguments for tool `read`")


@pytest.mark.anyio
async def test_a_sync_call_inside_a_running_event_loop_is_refused(tmp_path: Path) -> None:
    read = _by_name(tools(_location(tmp_path, Seen())), "read")
    with pytest.raises(RuntimeError, match="ainvoke"):
        read.invoke({"path": "notes.txt"})
    (tmp_path / "notes.txt").write_text("hi\n")
    assert await read.ainvoke({"path": "notes.txt"}) == "     1\thi"


def _plot(args: dict[str, JsonValue], ctx: ToolRunContext) -> WithContent[JsonValue]:
    return WithContent({"points": 3}, (ImageBlock("AAAA", "image/png"),))


def _plot_location() -> Location:
    location = Location()
    location.register(
        define_tool(
            name="plot",
            description="Plot",
            parameters=dict[str, JsonValue],
            output=Output(JsonValue),
            execute=_plot,
        )
    )
    return location


def test_images_reach_the_model_as_standard_blocks_and_the_value_is_the_artifact() -> None:
    [plot] = tools(_plot_location())
    message = plot.invoke({"type": "tool_call", "id": "p1", "name": "plot", "args": {}})
    assert message.content == [{"type": "image", "base64": "AAAA", "mime_type": "image/png"}]
    assert message.artifact == {"points": 3}


def test_each_call_takes_the_location_s_catalog_of_that_moment() -> None:
    location = Location()
    remove = location.register(_answering("plot", "first"))
    [plot] = tools(location)
    remove()
    message = plot.invoke({"type": "tool_call", "id": "u1", "name": "plot", "args": {}})
    assert message.artifact["code"] == "UNKNOWN_TOOL"
    location.register(_answering("plot", "second"))
    assert plot.invoke({}) == "second"


def _answering(name: str, answer: str) -> Any:
    return define_tool(
        name=name,
        description=name,
        parameters=dict[str, JsonValue],
        output=Output(JsonValue),
        execute=lambda args, ctx: answer,
    )


def test_a_scope_s_tools_are_the_ones_offered_and_called() -> None:
    location = _plot_location()
    location.register(_answering("shell", "ran"))
    location.add_scope("reviewer")
    location.restrict("reviewer", deny=["shell"])
    [plot] = tools(location, scope="reviewer")
    assert plot.name == "plot"
    [_, shell] = tools(location)
    location.restrict("reviewer", deny=["shell", "plot"])
    message = plot.invoke({"type": "tool_call", "id": "s1", "name": "plot", "args": {}})
    assert message.artifact["code"] == "UNKNOWN_TOOL"
    assert shell.invoke({}) == "ran"


def test_a_catalog_has_no_scope_to_pick() -> None:
    with pytest.raises(ValueError, match="scope"):
        tools(_plot_location().catalog(), scope="reviewer")


def _by_name(agent_tools: Sequence[BaseTool], name: str = "write") -> BaseTool:
    [found] = [tool for tool in agent_tools if tool.name == name]
    return found
