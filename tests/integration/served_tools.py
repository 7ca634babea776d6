"""A tool provider for the `toolfx mcp serve` tests, installed into the served process by
`provider_env`: a dist-info folder on its PYTHONPATH registers `tools` under `toolfx.tools`."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, TypedDict

from toolfx.core.json import JsonValue
from toolfx.core.runtime import SandboxMode
from toolfx.core.tools import Output, ToolDefinition, ToolRunContext, define_tool

__all__ = ["STALL_TIMEOUT", "provider_env", "tools"]

STALL_TIMEOUT: Final = 0.2
"""The `stall` tool's own timeout, in seconds."""

_REPOSITORY: Final = Path(__file__).resolve().parents[2]


class StallArgs(TypedDict):
    """No arguments."""


async def _stall(args: StallArgs, ctx: ToolRunContext) -> str:
    await ctx.runtime.sleep(3600.0, ctx.signal)  # its timeout sets the signal long before
    return "woke up"


def tools(
    root: str,
    rules: JsonValue,
    /,
    *,
    sandbox: SandboxMode,
    environ: Mapping[str, str],
) -> Sequence[ToolDefinition[Any, Any]]:
    """The test tools: `stall`, which waits past its own timeout."""
    stall = define_tool(
        name="stall",
        description="Waits for an hour, past its own timeout.",
        parameters=StallArgs,
        output=Output(str),
        execute=_stall,
        timeout=STALL_TIMEOUT,
    )
    return [stall]


def provider_env(folder: Path) -> dict[str, str]:
    """The environment of a `toolfx` process that also loads `tools`: a dist-info folder made
    in `folder` registers it, and PYTHONPATH finds that folder and this repository."""
    info = folder / "toolfx_served_tools-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toolfx-served-tools\nVersion: 0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        f"[toolfx.tools]\nzz-served-tests = {__name__}:tools\n", encoding="utf-8"
    )
    path = [str(folder), str(_REPOSITORY), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {"PYTHONPATH": os.pathsep.join(path)}
