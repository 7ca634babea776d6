"""`toolfx mcp serve` as a real process, driven by the MCP SDK's client over stdio.

On asyncio and trio; the elicitation test runs in both protocol eras (the handshake era asks with
an `elicitation/create` request, 2026-07-28 with an input-required round). A failed call carries
its code in `_meta`; a cancelled one (answered by no one, as MCP says) is logged on stderr. No
test asserts a duration: waits are generous safety nets against a hang on a noisy machine.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO, cast

import anyio
import mcp_types as types
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.session import ClientRequestContext, ElicitationFnT
from mcp.client.stdio import stdio_client

from tests.cli.support import TOOLFX
from tests.integration.mcp_support import SAFETY_NET, eventually
from tests.integration.served_tools import STALL_TIMEOUT, provider_env
from tests.support import alive, marked
from toolfx.core.json import thaw_json
from toolfx.interpreters.cli import _mcp_calls as mcp_calls
from toolfx.interpreters.cli._mcp_asks import ASK_SCHEMA
from toolfx.interpreters.cli._mcp_calls import CALL_ID_META, ERROR_META
from toolfx.interpreters.cli._mcp_serve import mcp_server
from toolfx.interpreters.providers import load_catalog

pytestmark = pytest.mark.anyio


class Asker:
    """An elicitation callback: keeps each ask's message and schema, answers from a script."""

    def __init__(self, *answers: types.ElicitResult) -> None:
        self.messages: list[str] = []
        self.schemas: list[dict[str, Any]] = []
        self._answers = list(answers)

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        assert isinstance(params, types.ElicitRequestFormParams)
        self.messages.append(params.message)
        self.schemas.append(params.requested_schema)
        return self._answers.pop(0)


def decide(decision: str, feedback: str | None = None) -> types.ElicitResult:
    """An accepted form with this decision (and feedback)."""
    content: dict[str, Any] = {"decision": decision}
    if feedback is not None:
        content["feedback"] = feedback
    return types.ElicitResult(action="accept", content=content)


@asynccontextmanager
async def serving(
    workspace: Path,
    *,
    rules: list[dict[str, str]] | None = None,
    elicitation: ElicitationFnT | None = None,
    mode: str = "auto",
    env: dict[str, str] | None = None,
    errlog: TextIO | None = None,
) -> AsyncIterator[Client]:
    """A client connected to `toolfx mcp serve --workspace WORKSPACE [--rules ...]` (with `env`
    added to its environment, its stderr to `errlog`)."""
    args = ["mcp", "serve", "--workspace", str(workspace)]
    if rules is not None:
        rules_file = workspace.parent / "rules.json"
        rules_file.write_text(json.dumps(rules), encoding="utf-8")
        args += ["--rules", str(rules_file)]
    server = StdioServerParameters(command=TOOLFX, args=args, env=env)
    transport = stdio_client(server) if errlog is None else stdio_client(server, errlog)
    async with Client(transport, mode=mode, elicitation_callback=elicitation) as client:
        yield client


def model_call(call_id: str) -> types.RequestParamsMeta:
    """A `tools/call` request's `_meta` naming the model's call id."""
    return cast("types.RequestParamsMeta", {CALL_ID_META: call_id})  # an open TypedDict


def text(result: types.CallToolResult) -> str:
    """The result's one text block."""
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


def error_code(result: types.CallToolResult) -> str:
    """The toolfx error code of a failed result, whose `_meta` also has its message (the
    content) and details, and which has no structured content."""
    assert result.is_error
    assert result.structured_content is None
    assert result.meta is not None
    error = result.meta[ERROR_META]
    assert sorted(error) == ["code", "details", "message"]
    assert error["message"] == text(result)
    code: str = error["code"]
    return code


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace with one file, `notes.txt`."""
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "notes.txt").write_text("first\nsecond\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_tools_are_listed_read_runs_and_asks_go_to_elicitation(
    workspace: Path, mode: str
) -> None:
    asker = Asker(decide("once"), decide("reject"), decide("reject", "use notes.txt"))
    deny_rm = [{"permission": "bash", "pattern": "rm *", "action": "deny"}]
    async with serving(workspace, rules=deny_rm, elicitation=asker, mode=mode) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        expected = load_catalog(str(workspace)).native_schemas()
        assert sorted(listed) == ["bash", "edit", "glob", "grep", "read", "write"]
        for schema in expected:
            assert listed[schema.name].input_schema == thaw_json(schema.parameters)
            assert listed[schema.name].description == schema.description

        read = await client.call_tool("read", {"path": "notes.txt"})
        assert not read.is_error
        assert text(read) == "     1\tfirst\n     2\tsecond"
        assert read.structured_content is not None  # the value, an object
        assert read.structured_content["total_lines"] == 2

        written = await client.call_tool(
            "write", {"path": "new.txt", "content": "hi\n"}, meta=model_call("toolu_01")
        )
        assert not written.is_error, written
        assert (workspace / "new.txt").read_text(encoding="utf-8") == "hi\n"
        assert len(asker.messages) == 1
        (named, *_) = asker.messages[0].splitlines()
        assert named == 'write {"path":"new.txt","content":"hi\\n"} (call toolu_01) asks for edit'
        assert "on: new.txt" in asker.messages[0]
        assert asker.schemas == [ASK_SCHEMA]

        rejected = await client.call_tool("write", {"path": "other.txt", "content": "no\n"})
        assert error_code(rejected) == "DENIED"
        assert asker.messages[1].startswith('write {"path":"other.txt","content":"no\\n"} asks')
        assert "the user rejected other.txt" in text(rejected)
        corrected = await client.call_tool("write", {"path": "third.txt", "content": "no\n"})
        assert error_code(corrected) == "DENIED"
        assert text(corrected).endswith("saying: use notes.txt")
        assert not (workspace / "other.txt").exists()
        assert not (workspace / "third.txt").exists()

        (workspace / "x").mkdir()
        removed = await client.call_tool("bash", {"command": "rm -rf x"})
        assert error_code(removed) == "DENIED"
        assert "a rule denies rm" in text(removed)
        assert (workspace / "x").is_dir()
        assert len(asker.messages) == 3  # the rule decided: no one was asked


async def test_always_is_remembered_for_the_session(workspace: Path) -> None:
    asker = Asker(decide("always"))
    async with serving(workspace, elicitation=asker) as client:
        for content in ("one\n", "two\n"):
            result = await client.call_tool("write", {"path": "log.txt", "content": content})
            assert not result.is_error, result
        assert (workspace / "log.txt").read_text(encoding="utf-8") == "two\n"
        assert len(asker.messages) == 1


async def test_without_elicitation_an_ask_is_denied(workspace: Path) -> None:
    allow_echo = [{"permission": "bash", "pattern": "echo *", "action": "allow"}]
    async with serving(workspace, rules=allow_echo) as client:
        result = await client.call_tool("write", {"path": "new.txt", "content": "hi\n"})
        assert error_code(result) == "DENIED"
        assert "no one could approve new.txt" in text(result)
        assert not (workspace / "new.txt").exists()
        echoed = await client.call_tool("bash", {"command": "echo allowed"})
        assert not echoed.is_error, echoed  # what the rules allow needs no one to ask


async def test_a_cancelled_call_stops_its_command_and_logs_aborted(
    workspace: Path, tmp_path: Path
) -> None:
    allow_all = [{"permission": "bash", "pattern": "*", "action": "allow"}]
    marker = f"toolfx-mcp-mark-{uuid.uuid4().hex}"
    log = tmp_path / "stderr.txt"
    with log.open("w", encoding="utf-8") as errlog:
        async with serving(workspace, rules=allow_all, errlog=errlog) as client:
            await _cancel_a_running_command(client, marker)
            still = await client.call_tool("read", {"path": "pid"})
            assert not still.is_error, still
            ended = "`bash` (toolu_sleep) was stopped, its result goes to no one: it ended ABORTED"
            await eventually(lambda: ended in log.read_text(encoding="utf-8"))


async def _cancel_a_running_command(client: Client, marker: str) -> None:
    """Run a long command, and cancel its call (the client sends notifications/cancelled)."""
    with anyio.move_on_after(SAFETY_NET) as scope:
        async with anyio.create_task_group() as group:

            async def sleep_long() -> None:  # a sandbox may give it a pid of its own: marked
                command = f"echo started > pid && exec -a {marker} sleep 300"
                await client.call_tool("bash", {"command": command}, meta=model_call("toolu_sleep"))

            group.start_soon(sleep_long)
            await eventually(lambda: len(marked(marker)) == 1)
            (pid,) = marked(marker)
            assert alive(pid)
            group.cancel_scope.cancel()  # the client sends notifications/cancelled
    assert not scope.cancelled_caught
    await eventually(lambda: not alive(pid))  # the signal stopped the command


async def test_a_call_cancelled_while_it_asks_is_not_run(workspace: Path) -> None:
    asked, abandoned = anyio.Event(), anyio.Event()

    async def wait_forever(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        asked.set()
        try:
            await anyio.sleep_forever()
        finally:
            abandoned.set()  # the server withdrew its elicitation request
        return types.ElicitResult(action="cancel")

    async with serving(workspace, elicitation=wait_forever, mode="legacy") as client:
        with anyio.fail_after(SAFETY_NET):
            async with anyio.create_task_group() as group:

                async def write() -> None:
                    await client.call_tool("write", {"path": "new.txt", "content": "hi\n"})

                group.start_soon(write)
                await asked.wait()
                group.cancel_scope.cancel()
            await abandoned.wait()
        read = await client.call_tool("read", {"path": "notes.txt"})
        assert not read.is_error, read
        assert not (workspace / "new.txt").exists()


async def test_a_parked_ask_left_unanswered_expires(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mcp_calls, "ASK_TTL", 0.2)

    async def answer_late(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        await anyio.sleep(0.6)  # the server gave up on the ask meanwhile
        return decide("once")

    async with anyio.create_task_group() as group:  # the server in-process, 2026-07-28
        server = mcp_server(load_catalog(str(workspace)), group)
        async with Client(server, mode="2026-07-28", elicitation_callback=answer_late) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("write", {"path": "new.txt", "content": "hi\n"})
            assert "no call of `write` waits under this requestState" in str(raised.value)
        group.cancel_scope.cancel()
    assert not (workspace / "new.txt").exists()


async def test_a_tool_past_its_own_timeout_fails_with_tool_timeout(
    workspace: Path, tmp_path: Path
) -> None:
    async with serving(workspace, env=provider_env(tmp_path / "provider")) as client:
        with anyio.fail_after(SAFETY_NET):  # only against a hang: the tool times out first
            result = await client.call_tool("stall", {})
        assert error_code(result) == "TOOL_TIMEOUT"
        assert text(result) == f"`stall` timed out after {STALL_TIMEOUT}s"


async def test_an_ask_the_user_cancels_fails_with_aborted(workspace: Path) -> None:
    asker = Asker(types.ElicitResult(action="cancel"))
    async with serving(workspace, elicitation=asker, mode="legacy") as client:
        result = await client.call_tool("write", {"path": "new.txt", "content": "hi\n"})
        assert error_code(result) == "ABORTED"
        assert len(asker.messages) == 1
        assert not (workspace / "new.txt").exists()


async def test_invalid_arguments_and_unknown_tools_carry_their_codes(workspace: Path) -> None:
    async with serving(workspace) as client:
        assert error_code(await client.call_tool("read", {"path": 3})) == "INVALID_ARGS"
        assert error_code(await client.call_tool("nothing", {})) == "UNKNOWN_TOOL"
