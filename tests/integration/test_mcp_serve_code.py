"""`toolfx mcp serve --present code`: the client is offered `run_code`, whose programs reach the
tools (each call through the pipeline, its asks put to the client), and not the tools themselves.
The server runs in-process under the MCP SDK's client, and once as the real command."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientRequestContext, ElicitationFnT
from mcp.client.stdio import stdio_client

from tests.cli.support import TOOLFX
from toolfx.core.codemode import RUN_CODE
from toolfx.interpreters.cli._mcp_calls import ERROR_META
from toolfx.interpreters.cli._mcp_serve import mcp_server
from toolfx.interpreters.providers import load_catalog

pytestmark = pytest.mark.anyio

GATHER = """\
import asyncio

found, notes = await asyncio.gather(
    glob(pattern="*.txt", path="."),
    read(path="notes.txt", offset=1, limit=10),
)
{"found": found, "notes": notes}
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "notes.txt").write_text("first\nsecond\n", encoding="utf-8")
    return root


@asynccontextmanager
async def in_process(
    workspace: Path, elicitation: ElicitationFnT | None = None
) -> AsyncIterator[Client]:
    """A client of the server of `workspace`'s tools presented as code, in this process."""
    async with anyio.create_task_group() as group:
        server = mcp_server(load_catalog(str(workspace), present="code"), group)
        async with Client(server, elicitation_callback=elicitation) as client:
            yield client
        group.cancel_scope.cancel()


def text(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


async def test_the_client_is_offered_run_code_and_its_program_reaches_the_tools(
    workspace: Path,
) -> None:
    async with in_process(workspace) as client:
        (listed,) = (await client.list_tools()).tools
        assert listed.name == RUN_CODE
        assert listed.description is not None
        assert "async def read(" in listed.description  # the stubs of the tools it reaches
        assert listed.input_schema["required"] == ["code"]
        result = await client.call_tool(RUN_CODE, {"code": GATHER})
        assert not result.is_error, result
        assert result.structured_content is not None  # the program's value, an object
        assert result.structured_content["found"]["paths"] == ["notes.txt"]
        assert result.structured_content["notes"]["total_lines"] == 2
        assert json.loads(text(result)) == result.structured_content


async def test_a_tool_in_code_mode_is_not_callable_directly(workspace: Path) -> None:
    async with in_process(workspace) as client:
        result = await client.call_tool("read", {"path": "notes.txt"})
        assert result.is_error
        assert result.meta is not None
        assert result.meta[ERROR_META]["code"] == "UNKNOWN_TOOL"


async def test_an_ask_inside_a_program_goes_to_the_client(workspace: Path) -> None:
    asked: list[str] = []

    async def allow_once(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": "once"})

    program = 'await write(path="new.txt", content="hi\\n")\n"written"'
    async with in_process(workspace, allow_once) as client:
        result = await client.call_tool(RUN_CODE, {"code": program})
        assert not result.is_error, result
        assert text(result) == "written"  # a string value is shown as the text itself
    assert (workspace / "new.txt").read_text(encoding="utf-8") == "hi\n"
    (message,) = asked
    assert message.startswith('write {"path":"new.txt","content":"hi\\n"}')


async def test_the_command_serves_run_code_when_asked_to_present_code(workspace: Path) -> None:
    args = ["mcp", "serve", "--workspace", str(workspace), "--present", "code"]
    transport = stdio_client(StdioServerParameters(command=TOOLFX, args=args))
    async with Client(transport) as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == [RUN_CODE]
        result = await client.call_tool(RUN_CODE, {"code": GATHER})
        assert not result.is_error, result
        assert result.structured_content is not None
        assert result.structured_content["found"]["total"] == 1
