"""MCP client fidelity against real servers, on asyncio and trio: every content kind arrives as
the server sent it (also beside structured content), task-required tools are skipped with a
notice, progress reaches the runtime's reporter, and the server's asks reach its approvals
(the repository's test server, and `toolfx mcp serve` approving or refusing a write).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.support import TOOLFX
from tests.integration.mcp_support import failure, local_server, registered, run, value
from tests.integration.mcp_test_server import PIXEL
from toolfx.core.json import FrozenJson, snapshot_json
from toolfx.core.registry import Location
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, ProgressEvent
from toolfx.core.tools import (
    AudioBlock,
    ErrorCode,
    ImageBlock,
    ResourceBlobBlock,
    ResourceLinkBlock,
    ResourceTextBlock,
    TextBlock,
    ToolExecutionSuccess,
)
from toolfx.interpreters.anyio import AnyioRuntime
from toolfx.leaves.mcp._asks import ELICITATION_PERMISSION
from toolfx.leaves.mcp._server import McpServer

pytestmark = pytest.mark.anyio


def frozen(value: object) -> FrozenJson:
    result: FrozenJson = snapshot_json(value).unwrap()
    return result


AUDIENCE = frozen({"audience": ["user"], "priority": 0.5})

MEDIA = (
    TextBlock("all kinds:", AUDIENCE),
    ImageBlock(PIXEL, "image/png", AUDIENCE),
    AudioBlock("UklGRgAAAABXQVZF", "audio/wav"),
    ResourceTextBlock("file:///notes.md", "# Notes", "text/markdown", AUDIENCE),
    ResourceBlobBlock("file:///blob.bin", "AAECAw=="),
    ResourceLinkBlock(
        "file:///big.csv", "big.csv", "Big table", "too big to embed", "text/csv", 123456, AUDIENCE
    ),
)
"""The blocks of the test server's `media` tool, as toolfx blocks."""


async def test_every_content_kind_arrives_as_the_server_sent_it() -> None:
    location = Location()
    async with registered(local_server(), location):
        result = await run(location, "test_media")
        assert isinstance(result, ToolExecutionSuccess), result
        assert result.content == MEDIA
        assert isinstance(result.value, str)
        assert result.value.startswith("all kinds:\n[image (image/png), ")
        assert "[resource link: Big table <file:///big.csv> (text/csv, 123456 bytes)]" in (
            result.value
        )


async def test_structured_content_is_the_value_and_the_content_stays_the_content() -> None:
    location = Location()
    async with registered(local_server(), location):
        result = await run(location, "test_structured_media")
        assert value(result) == {"width": 1, "height": 1}
        assert result.content == MEDIA[:2]


async def test_a_task_required_tool_is_skipped_with_a_notice_and_an_optional_one_runs() -> None:
    location = Location()  # taskSupport is a 2025-11-25 field (an extension since 2026-07-28)
    async with registered(local_server(mode="legacy"), location) as server:
        assert server.report is not None
        assert "test_task_only" not in server.report.names
        (skipped,) = [n for n in server.report.skipped if n.tool == "task_only"]
        assert "execution.taskSupport is 'required'" in skipped.message
        assert location.get("test_task_only") is None
        assert value(await run(location, "test_task_maybe")) == "task_maybe ran"


async def test_progress_reaches_the_runtimes_reporter() -> None:
    location = Location()
    events: list[ProgressEvent] = []
    runtime = AnyioRuntime(progress=events.append)
    async with registered(local_server(), location):
        assert value(await run(location, "test_progress", runtime=runtime)) == "progressed"
    assert events == [
        ProgressEvent("call-1", "test_progress", float(step), 3.0, f"step {step}")
        for step in (1, 2, 3)
    ]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ("allowed-once", {"action": "accept", "content": {"decision": "once"}}),
        ("rejected", {"action": "decline", "content": None}),
        ("unavailable", {"action": "cancel", "content": None}),
    ],
)
async def test_an_elicitation_goes_to_the_approvals_of_its_call(
    mode: str, reply: ApprovalReply, answer: dict[str, object]
) -> None:
    location = Location()
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> ApprovalReply:
        asked.append(request)
        return reply

    async with registered(local_server(mode=mode), location):
        result = await run(location, "test_confirm", runtime=AnyioRuntime(approve))
        assert json.loads(str(value(result))) == answer
    (request,) = asked
    assert (request.call_id, request.tool, request.permission) == (
        "call-1",
        "test_confirm",
        ELICITATION_PERMISSION,
    )
    assert (request.patterns, request.reason) == (("test",), "Go ahead?")


def toolfx_serve(workspace: Path, mode: str) -> McpServer:
    """`toolfx mcp serve --workspace WORKSPACE` as an MCP server under the namespace `fx`."""
    args = ["mcp", "serve", "--workspace", str(workspace)]
    return McpServer.stdio(TOOLFX, args, namespace="fx", timeout=60, mode=mode)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("reply", ["allowed-once", "rejected"])
async def test_toolfx_as_a_client_of_toolfx_mcp_serve_approves_a_write(
    tmp_path: Path, mode: str, reply: ApprovalReply
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> ApprovalReply:
        asked.append(request)
        return reply

    location = Location()
    async with registered(toolfx_serve(workspace, mode), location):
        args = {"path": "new.txt", "content": "hi\n"}
        result = await run(location, "fx_write", args, runtime=AnyioRuntime(approve))
    (request,) = asked
    assert request.tool == "fx_write"
    assert request.reason is not None
    assert "new.txt" in request.reason
    assert "(call " in request.reason  # the server names the call by the id the client gave
    if reply == "allowed-once":
        assert isinstance(result, ToolExecutionSuccess), result
        assert (workspace / "new.txt").read_text(encoding="utf-8") == "hi\n"
    else:
        assert "rejected" in failure(result, ErrorCode.DENIED)  # the server's code, kept
        assert not (workspace / "new.txt").exists()
