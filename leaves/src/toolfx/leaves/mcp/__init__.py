"""MCP client adapter: a server's tools, registered in a Location and run through the pipeline.

    async with McpServer.stdio("python", ["server.py"], namespace="files") as server:
        report = await server.register(location)
        ...  # run calls with the anyio interpreter (asyncio or trio) on this event loop

Servers are reached over stdio or streamable HTTP with the official `mcp` SDK. Each tool is
registered as `<namespace>_<tool>` (sanitised, capped at 64 characters with a stable hash);
its schemas must pass the `full` profile, or the tool is skipped with a warning; `readOnlyHint`
makes it parallel-safe. Calls go through the whole pipeline (policy, guards, the server's
timeout); cancelling a call sends MCP's cancellation; `isError` is a TOOL_ERROR failure, and
structured content must match the tool's output schema. The model sees every content block as
the server sent it (text, images, audio, embedded resources, resource links, annotations), and
structured content becomes the value. Calls ask for progress, which reaches the runtime's
progress reporter; the server's elicitations go to the runtime's approvals as asks with the
permission `ELICITATION_PERMISSION`. Tools that require MCP tasks are skipped with a notice.
A dead or hung server gives failure results, not hangs, and `reconnect()` brings it back.
"""

from toolfx.core.public import publish
from toolfx.leaves.mcp._asks import ELICITATION_PERMISSION
from toolfx.leaves.mcp._link import McpServerError
from toolfx.leaves.mcp._server import McpServer, McpTarget
from toolfx.leaves.mcp._tools import McpNotice, McpToolsReport

__all__ = [
    "ELICITATION_PERMISSION",
    "McpNotice",
    "McpServer",
    "McpServerError",
    "McpTarget",
    "McpToolsReport",
]

publish(__name__, __all__, globals())
