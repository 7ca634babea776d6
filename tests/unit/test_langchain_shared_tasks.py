"""Calls of one turn sharing a LangGraph task: no answer reaches the wrong call, nothing runs twice.

LangGraph's ToolNode runs the calls of one task on threads, so their order differs from run to
run. Here one node runs a turn's calls in one task in an order the test picks for each run, each
call to completion, and raises the interrupt of the first call (in the turn's order) that asked,
as ToolNode does: every pair of orders (the first run's, the resumed run's) is tried.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphInterrupt
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command

from tests.unit.test_langchain_tools import ScriptedModel
from toolfx.core import Location, tool
from toolfx.interpreters.langchain import _asks, _tools, tools
from toolfx.interpreters.langchain._shared_tasks import TaskCalls
from toolfx.leaves import Workspace, workspace_tools

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import BaseTool
    from langgraph.graph.state import CompiledStateGraph

_WRITES: list[dict[str, Any]] = [
    {"id": "w1", "name": "write", "args": {"path": "a.txt", "content": "A"}},
    {"id": "w2", "name": "write", "args": {"path": "b.txt", "content": "B"}},
]
_CHARGE: dict[str, Any] = {"id": "c1", "name": "charge", "args": {"cents": 500}}


def _location(root: Path, charges: list[int]) -> Location:
    location = Location()
    for leaf in workspace_tools(Workspace(str(root))):
        location.register(leaf)

    @tool
    def charge(cents: int) -> str:
        """Charge the card."""
        charges.append(cents)
        return f"charged {cents}"

    location.register(charge)
    return location


def _one_task(agent_tools: Sequence[BaseTool], orders: Iterator[Sequence[int]]) -> Any:
    """A node running the turn's calls in one task, in the next order of `orders`."""
    by_name = {tool.name: tool for tool in agent_tools}

    def node(state: MessagesState, config: RunnableConfig) -> dict[str, list[BaseMessage]]:
        last = state["messages"][-1]
        assert isinstance(last, AIMessage)
        outcomes: dict[int, ToolMessage | GraphInterrupt] = {}
        for index in next(orders):
            call = last.tool_calls[index]
            try:
                outcomes[index] = by_name[call["name"]].invoke(
                    {**call, "type": "tool_call"}, config
                )
            except GraphInterrupt as stopped:
                outcomes[index] = stopped
        in_turn_order = [outcomes[index] for index in range(len(last.tool_calls))]
        for outcome in in_turn_order:
            if isinstance(outcome, GraphInterrupt):
                raise outcome
        return {"messages": [m for m in in_turn_order if isinstance(m, ToolMessage)]}

    return node


def _graph(
    agent_tools: Sequence[BaseTool], calls: list[dict[str, Any]], tools_node: Any
) -> CompiledStateGraph[Any]:
    model = ScriptedModel(messages=iter([AIMessage("", tool_calls=calls), AIMessage("done")]))
    builder = StateGraph(MessagesState)
    builder.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
    builder.add_node("tools", tools_node)
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=InMemorySaver())


def _run_to_the_end(
    graph: CompiledStateGraph[Any], thread: str
) -> tuple[list[str], dict[str, ToolMessage]]:
    """Run the graph, approving each ask shown (by order, as `Command(resume=...)` does) until
    it ends: the paths shown, and the answers to the calls."""
    config: RunnableConfig = {"configurable": {"thread_id": thread}}
    state = graph.invoke({"messages": [HumanMessage("go")]}, config)
    shown: list[str] = []
    for _ in range(4):
        if "__interrupt__" not in state:
            break
        shown += [asked.value["arguments"]["path"] for asked in state["__interrupt__"]]
        state = graph.invoke(Command(resume="allowed-once"), config)
    assert "__interrupt__" not in state
    answers = {m.tool_call_id: m for m in state["messages"] if isinstance(m, ToolMessage)}
    return shown, answers


def _written(root: Path) -> set[str]:
    return {path.name for path in root.iterdir()}


_TWO = list(itertools.permutations(range(2)))


@pytest.mark.parametrize(("first", "resumed"), list(itertools.product(_TWO, _TWO)))
def test_an_answer_never_reaches_a_call_it_was_not_shown_for(
    tmp_path: Path, first: tuple[int, ...], resumed: tuple[int, ...]
) -> None:
    agent_tools = tools(_location(tmp_path, []))
    orders = iter([first, resumed, resumed])
    graph = _graph(agent_tools, _WRITES, _one_task(agent_tools, orders))
    shown, answers = _run_to_the_end(graph, f"order-{first}-{resumed}")
    assert _written(tmp_path) == set(shown)  # only what the human approved, and all of it
    assert len(shown) == 1  # the second ask is refused, not shown
    refused = [m for m in answers.values() if m.status == "error"]
    assert [m.artifact["code"] for m in refused] == ["DENIED"]
    assert "route one `Send` per call" in str(refused[0].content)


_THREE = list(itertools.permutations(range(3)))


@pytest.mark.parametrize(("first", "resumed"), list(itertools.product(_THREE, _THREE)))
def test_a_call_of_the_task_never_runs_twice_nor_takes_another_s_answer(
    tmp_path: Path, first: tuple[int, ...], resumed: tuple[int, ...]
) -> None:
    charges: list[int] = []
    agent_tools = tools(_location(tmp_path, charges))
    orders = iter([first, resumed, resumed])
    graph = _graph(agent_tools, [_CHARGE, *_WRITES], _one_task(agent_tools, orders))
    shown, answers = _run_to_the_end(graph, f"charge-{first}-{resumed}")
    assert charges in ([], [500])
    assert _written(tmp_path) == set(shown)
    ran = [m for m in answers.values() if m.status == "success"]
    assert len(ran) == len(charges) + len(shown)


def test_a_tool_node_given_the_whole_turn_is_safe_whatever_its_threads_do(tmp_path: Path) -> None:
    for run in range(12):
        root = tmp_path / str(run)
        root.mkdir()
        charges: list[int] = []
        agent_tools = tools(_location(root, charges))
        graph = _graph(agent_tools, [_CHARGE, *_WRITES], ToolNode(agent_tools))
        shown, _ = _run_to_the_end(graph, f"tool-node-{run}")
        assert charges in ([], [500])
        assert _written(root) == set(shown)


@given(st.lists(st.tuples(st.booleans(), st.sampled_from("abc")), max_size=12))
def test_a_call_let_interrupt_a_task_is_the_only_call_let_run_in_it(
    steps: list[tuple[bool, str]],
) -> None:
    register, task = TaskCalls(), ("thread", "tools:task")
    admitted: set[str] = set()
    interrupted: set[str] = set()
    for interrupts, call in steps:
        if interrupts:
            if register.ask(task, call) is None:
                interrupted.add(call)
        elif register.start(task, call) is None:
            admitted.add(call)
    for call in interrupted:
        assert admitted <= {call}


@pytest.fixture
def anyio_backend() -> str:
    """LangGraph's async runs are asyncio's."""
    return "asyncio"


def _resumed_in_a_new_process(
    monkeypatch: pytest.MonkeyPatch, first: Sequence[int], resumed: Sequence[int]
) -> Iterator[Sequence[int]]:
    """The orders of the runs, the register emptied before the resumed runs (a new process)."""
    yield first
    fresh = TaskCalls()
    for module in (_asks, _tools):
        monkeypatch.setattr(module, "TASKS", fresh)
    while True:
        yield resumed


@pytest.mark.parametrize(("first", "resumed"), list(itertools.product(_THREE, _THREE)))
def test_resumed_in_another_process_no_call_runs_twice(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    first: tuple[int, ...],
    resumed: tuple[int, ...],
) -> None:
    charges: list[int] = []
    agent_tools = tools(_location(tmp_path, charges))
    orders = _resumed_in_a_new_process(monkeypatch, first, resumed)
    graph = _graph(agent_tools, [_CHARGE, *_WRITES], _one_task(agent_tools, orders))
    _run_to_the_end(graph, f"elsewhere-{first}-{resumed}")
    assert charges in ([], [500])


@pytest.mark.parametrize("order", _TWO)
def test_resumed_in_another_process_the_call_shown_takes_its_answer_when_it_starts_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: tuple[int, ...]
) -> None:
    agent_tools = tools(_location(tmp_path, []))
    orders = _resumed_in_a_new_process(monkeypatch, order, order)
    graph = _graph(agent_tools, _WRITES, _one_task(agent_tools, orders))
    shown, _ = _run_to_the_end(graph, f"elsewhere-{order}")
    assert _written(tmp_path) == set(shown) == {_WRITES[order[0]]["args"]["path"]}


@pytest.mark.anyio
async def test_an_async_tool_node_given_the_whole_turn_is_safe_too(tmp_path: Path) -> None:
    charges: list[int] = []
    agent_tools = tools(_location(tmp_path, charges))
    graph = _graph(agent_tools, [_CHARGE, *_WRITES], ToolNode(agent_tools))
    config: RunnableConfig = {"configurable": {"thread_id": "async"}}
    state = await graph.ainvoke({"messages": [HumanMessage("go")]}, config)
    shown = [asked.value["arguments"]["path"] for asked in state.get("__interrupt__", [])]
    if shown:
        state = await graph.ainvoke(Command(resume="allowed-once"), config)
    assert "__interrupt__" not in state
    assert charges in ([], [500])
    assert _written(tmp_path) == set(shown)
