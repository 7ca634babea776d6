"""Check-then-use races inside the workspace: a separate process swaps an allowed file for a
symlink to a file the rules protect (`.git/config`, a `.env` that read and grep deny), so the
permission decided for the resolved path must be the one the operation acts on. Not one
protected byte may be read, nothing written there; in memory, a swap after the check is
CHANGED. Attempts per leaf come from TOOLFX_SECURITY_ATTEMPTS (default 50)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.leaves_support import catalog_of, text_of
from tests.security.figures import ATTEMPTS, Figures
from tests.security.support import Interpreter
from tests.security.test_file_races import RACER, StaleCheck
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Catalog
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import ToolExecutionResult
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import MemoryFileSystem
from toolfx.leaves._rules import Rule
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.workspace import Workspace

SECRET = "SECRET=7f3a"
CONFIG = "[core]\n"
RULES = (
    Rule("edit", "*", "allow"),
    Rule("read", ".env", "deny"),
    Rule("grep", ".env", "deny"),
)
CALLS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("read", ".env", {"path": "f.txt"}),
    ("grep", ".env", {"regex": "SECRET|inside", "path": "f.txt"}),
    ("write", ".git/config", {"path": "f.txt", "content": "[core]\n\tfsmonitor = evil\n"}),
)


def _run(interpreter: Interpreter, catalog: Catalog, call: ToolCall) -> ToolExecutionResult:
    """`call` with every ask rejected: only the rules allow."""
    description = execute(catalog, call)
    result: ToolExecutionResult
    if interpreter == "sync":
        result = run_sync(description, SyncRuntime(approvals=lambda request: "rejected"))
    else:
        runtime = AnyioRuntime(approvals=lambda request: "rejected")
        result = run_anyio(description, interpreter, runtime)
    return result


def _leaked(result: ToolExecutionResult) -> int:
    text = "".join(getattr(block, "text", "") for block in result.content)
    return len(SECRET) if SECRET in text else 0


@pytest.mark.parametrize("case", CALLS, ids=[c[0] for c in CALLS])
def test_a_swap_to_a_protected_inside_file_is_never_followed(
    tmp_path: Path, interpreter: Interpreter, figures: Figures, case: tuple[str, str, Any]
) -> None:
    leaf, target, arguments = case
    root = Path(os.path.realpath(tmp_path / "ws"))
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text(CONFIG)
    (root / ".env").write_text(f"{SECRET}\n")
    (root / "f.txt").write_text("inside\n")
    catalog = catalog_of(Workspace(str(root), Permissions(RULES)))
    stop = tmp_path / "stop"
    racer = subprocess.Popen([sys.executable, RACER, "file", str(root / "f.txt"), target, stop])
    leaked = 0
    try:
        for attempt in range(ATTEMPTS):
            call = ToolCall(f"c{attempt}", leaf, dict(arguments), CancelSignal())
            leaked += _leaked(_run(interpreter, catalog, call))
    finally:
        stop.touch()
        racer.wait(timeout=60)
    written = (root / ".git" / "config").read_text() != CONFIG
    figures.race(leaf, f"swap to {target} (denied)", ATTEMPTS, leaked + written)
    assert leaked == 0
    assert not written
    assert (root / ".env").read_text() == f"{SECRET}\n"


@pytest.mark.parametrize(("leaf", "target", "arguments"), CALLS, ids=[c[0] for c in CALLS])
def test_a_swap_after_the_check_is_changed_in_memory(
    leaf: str, target: str, arguments: dict[str, Any]
) -> None:
    memory = MemoryFileSystem.from_files({"/ws/.git/config": CONFIG, "/ws/.env": SECRET})
    memory.add_symlink("/ws/f.txt", target)
    before = memory.snapshot()
    catalog = catalog_of(Workspace("/ws", Permissions(RULES)))
    runtime = SyncRuntime(approvals=lambda request: "rejected", files=StaleCheck(memory))
    call = ToolCall("c", leaf, dict(arguments), CancelSignal())
    result = run_sync(execute(catalog, call), runtime)
    assert memory.snapshot() == before
    assert _leaked(result) == 0
    if leaf != "grep":  # grep leaves out a file it cannot read
        assert text_of(result).startswith("f.txt changed while in use")
