"""The conformance kit's interpreter factory for the four built-in interpreters."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal, final

from toolfx.core.runtime import DelegatingRuntime, Interpreter, Runtime
from toolfx.interpreters import AnyioFolderSpills, FolderSpills
from toolfx.interpreters.anyio import AnyioInterpreter, AnyioRuntime
from toolfx.interpreters.sync import SyncInterpreter, SyncRuntime
from toolfx.interpreters.testing import DeterministicInterpreter, MemorySpills
from toolfx.testing import Host, InterpreterFactory

__all__ = ["BUILTIN", "Builtin", "builtin_factory"]

Builtin = Literal["sync", "asyncio", "trio", "deterministic"]
BUILTIN: tuple[Builtin, ...] = ("sync", "asyncio", "trio", "deterministic")


@final
class Reporting(DelegatingRuntime):
    """The deterministic runtime, handing each defect to the host as well as to its trace."""

    def __init__(self, inner: Runtime, on_defect: Callable[[BaseException, str], None]) -> None:
        super().__init__(inner)
        self.on_defect = on_defect

    def report(self, error: BaseException, where: str) -> None:
        super().report(error, where)
        self.on_defect(error, where)


def builtin_factory(name: Builtin, folder: Path) -> InterpreterFactory:
    """Builds the interpreter `name` around a scenario's host, spilling into `folder`."""

    def build(host: Host) -> Interpreter:
        if name == "deterministic":  # one store for all its runs, so spilled names stay unique
            return DeterministicInterpreter(
                seed=7,
                approvals=host.approvals,
                spills=MemorySpills() if host.spills is None else host.spills,
                progress=host.progress,
                wrap=lambda runtime: Reporting(runtime, host.report),
                code=host.code,
                remote=host.remote,
            )
        if name == "sync":
            spills = FolderSpills(str(folder)) if host.spills is None else host.spills
            return SyncInterpreter(
                SyncRuntime(
                    host.approvals,
                    host.report,
                    progress=host.progress,
                    spills=spills,
                    code=host.code,
                    remote=host.remote,
                )
            )
        store = AnyioFolderSpills(str(folder)) if host.spills is None else host.spills
        runtime = AnyioRuntime(
            host.approvals,
            host.report,
            progress=host.progress,
            spills=store,
            code=host.code,
            remote=host.remote,
        )
        return AnyioInterpreter(name, runtime)

    return build
