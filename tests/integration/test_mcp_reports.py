"""What a user is told about an MCP server's tools: shortened names, collisions, bad schemas.

The reports do not depend on the event loop, so these tests run on asyncio only.
"""

from __future__ import annotations

import hashlib
import logging

import pytest

from tests.integration.mcp_support import local_server, registered, run, value
from tests.integration.mcp_test_server import LONG_NAME
from toolfx.core.json import JsonValue
from toolfx.core.registry import Location
from toolfx.core.tools import Output, ToolOptions, define_tool

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    """The backend for these tests."""
    return "asyncio"


async def test_a_name_longer_than_64_characters_is_cut_with_a_stable_hash(
    caplog: pytest.LogCaptureFixture,
) -> None:
    digest = hashlib.sha256(LONG_NAME.encode()).hexdigest()[:8]
    short = f"test_{LONG_NAME[:50]}_{digest}"
    assert len(short) == 64
    location = Location()
    with caplog.at_level(logging.INFO, logger="toolfx.mcp"):
        async with registered(local_server(), location) as server:
            assert server.report is not None
            (notice,) = [n for n in server.report.notices if n.tool == LONG_NAME]
            assert notice.kind == "renamed"
            assert notice.message == (
                f"MCP server 'test': tool '{LONG_NAME}' is registered as '{short}': "
                "model-facing names are capped at 64 characters, so it was cut and ends with "
                "a hash of its full name"
            )
            assert value(await run(location, short)) == f"{LONG_NAME} ran"
    assert notice.message in caplog.messages


async def test_colliding_names_register_the_first_and_report_the_others(
    caplog: pytest.LogCaptureFixture,
) -> None:
    location = Location()
    location.register(
        define_tool(
            name="echo",
            description="Someone else's echo.",
            parameters=dict[str, JsonValue],
            output=Output(str),
            execute=lambda args, context: "theirs",
            options=ToolOptions(namespace="test"),
        )
    )
    with caplog.at_level(logging.WARNING, logger="toolfx.mcp"):
        async with registered(local_server(), location) as server:
            assert server.report is not None
            messages = {notice.tool: notice.message for notice in server.report.skipped}
            assert messages["get.item"] == (
                "MCP server 'test': tool 'get.item' is skipped: its model-facing name "
                "'test_get_item' is already taken by its tool 'get_item'"
            )
            assert messages["echo"] == (
                "MCP server 'test': tool 'echo' is skipped: tool 'test_echo' is already "
                "registered in the global layer; pass shadow=True to register over it "
                "(disposing of the new one reveals the old)"
            )
            assert value(await run(location, "test_get_item")) == "get_item ran"
            assert value(await run(location, "test_echo", {})) == "theirs"
    assert {messages["get.item"], messages["echo"]} <= set(caplog.messages)


async def test_a_schema_with_an_unknown_keyword_skips_the_tool_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    location = Location()
    with caplog.at_level(logging.WARNING, logger="toolfx.mcp"):
        async with registered(local_server(), location) as server:
            assert server.report is not None
            (notice,) = [n for n in server.report.skipped if n.tool == "frobnicate"]
            assert notice.message == (
                "MCP server 'test': tool 'frobnicate' is skipped: its input schema would not be "
                "fully enforced: the JSON Schema has 1 problem:\n"
                "- /properties/level/x-frobnicate: unknown keyword 'x-frobnicate': it would be "
                "ignored, so it is not accepted"
            )
            assert location.get("test_frobnicate") is None
    assert notice.message in caplog.messages
