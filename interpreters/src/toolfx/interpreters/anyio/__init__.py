"""The anyio interpreter: runs descriptions on asyncio or trio with real files and processes."""

from toolfx.interpreters.anyio._processes import AnyioProcessRunner
from toolfx.interpreters.anyio._runtime import (
    AnyioApprovals,
    AnyioInterpreter,
    AnyioRuntime,
    run_anyio,
    run_anyio_async,
)

__all__ = [
    "AnyioApprovals",
    "AnyioInterpreter",
    "AnyioProcessRunner",
    "AnyioRuntime",
    "run_anyio",
    "run_anyio_async",
]
