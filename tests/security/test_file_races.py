"""Check-then-use races: a separate process swaps a file or folder inside the workspace for a
symlink to an outside folder in a tight loop while the file leaves run; not one byte may be
read from outside, and nothing written there. Attempts per leaf and race kind come from
TOOLFX_SECURITY_ATTEMPTS (default 50). The in-memory file system gets the same escapes,
deterministically, by a wrapper that swaps right after the workspace's check."""

from __future__ import annotations

import os
import posixpath
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Literal, TypedDict, final

import pytest
from returns.result import Result, Success

from tests.security.figures import ATTEMPTS, Figures
from tests.security.support import Interpreter
from tests.support import ForwardingFiles
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, CancelSignal
from toolfx.core.tools import (
    Output,
    TextBlock,
    ToolDefinition,
    ToolExecutionResult,
    ToolFailure,
    ToolRunContext,
    define_tool,
)
from toolfx.interpreters._os.spills import AnyioFolderSpills, FolderSpills
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import MemoryFileSystem, MemorySpills
from toolfx.leaves._rules import Rule
from toolfx.leaves._tools import workspace_tools
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.workspace import Workspace

SWAP_SIGNS = ("outside", "changed while in use", "external_directory")
"""What a result says when its call met the racer's symlink (refused, not followed)."""
MARKER = "OUTSIDE-MARKER-7f3a"
RACER = str(Path(__file__).with_name("racer.py"))

RaceKind = Literal["file", "folder"]


def _snapshot(folder: str) -> dict[str, tuple[bytes | str, int]]:
    """Every entry below `folder`: file content or link target, and its mtime."""
    seen: dict[str, tuple[bytes | str, int]] = {}
    for top, folders, files in os.walk(folder):
        for name in folders + files:
            path = posixpath.join(top, name)
            status = os.lstat(path)
            if os.path.islink(path):
                seen[path] = (os.readlink(path), status.st_mtime_ns)
            elif os.path.isfile(path):
                seen[path] = (Path(path).read_bytes(), status.st_mtime_ns)
            else:
                seen[path] = ("dir", status.st_mtime_ns)
    return seen


class Scene:
    """A real workspace and an outside folder holding the marker, with a racer swapping."""

    def __init__(self, base: Path, kind: RaceKind) -> None:
        self.root = os.path.realpath(base / "ws")
        self.outside = os.path.realpath(base / "outside")
        self.state = os.path.realpath(base / "state")
        for folder in (self.root, self.outside, self.state):
            os.makedirs(folder)
        for name in ("secret.txt", "f.txt", "dir/f.txt", f"dir/{MARKER}.txt"):
            path = Path(self.outside, name)
            path.parent.mkdir(exist_ok=True)
            path.write_text(f"{MARKER}\n")
        Path(self.root, "dir").mkdir()
        Path(self.root, "dir", "f.txt").write_text("inside\n")
        Path(self.root, "f.txt").write_text("inside\n")
        if kind == "file":
            self.racing = ("file", posixpath.join(self.root, "f.txt"), f"{self.outside}/secret.txt")
        else:
            self.racing = ("folder", posixpath.join(self.root, "dir"), f"{self.outside}/dir")
        self.before = _snapshot(self.outside)
        self.stop = str(base / "stop")

    def race(self) -> subprocess.Popen[bytes]:
        """Start the racing process and wait until it has made its first swap."""
        racer = subprocess.Popen(
            [sys.executable, RACER, *self.racing, self.stop], stdout=subprocess.PIPE
        )
        assert racer.stdout is not None
        assert racer.stdout.readline() == b"ready\n", "the racer ended before its first swap"
        return racer

    def end(self, racer: subprocess.Popen[bytes]) -> int:
        """Stop the racer and wait for it: how many swaps it made."""
        Path(self.stop).touch()
        out, _ = racer.communicate(timeout=60)
        assert racer.returncode == 0
        return int(out)


def _refuse_outside(request: ApprovalRequest) -> ApprovalReply:
    return "rejected" if request.permission == "external_directory" else "allowed-once"


def _run(
    interpreter: Interpreter, catalog: Catalog, call: ToolCall, spills: str
) -> ToolExecutionResult:
    description = execute(catalog, call)
    result: ToolExecutionResult
    if interpreter == "sync":
        runtime = SyncRuntime(approvals=_refuse_outside, spills=FolderSpills(spills))
        result = run_sync(description, runtime)
    else:
        folder = AnyioFolderSpills(spills)
        result = run_anyio(
            description, interpreter, AnyioRuntime(approvals=_refuse_outside, spills=folder)
        )
    return result


class SaveArgs(TypedDict):
    """The probe's argument (unused)."""

    note: str


def _saver() -> ToolDefinition[SaveArgs, str]:
    """A probe tool whose output is over the limits: the pipeline spills it whole."""

    async def save(args: SaveArgs, ctx: ToolRunContext) -> Result[str, ToolFailure]:
        return Success("line\n" * 5000)

    return define_tool(
        name="save", description="d", parameters=SaveArgs, output=Output(str), execute=save
    )


def _catalog(workspace: Workspace) -> Catalog:
    location = Location()
    for tool in workspace_tools(workspace):
        if tool.name != "bash":
            location.register(tool)
    location.register(_saver())
    return location.catalog()


def _calls(kind: RaceKind) -> list[tuple[str, dict[str, Any]]]:
    target = "f.txt" if kind == "file" else "dir/f.txt"
    return [
        ("read", {"path": target}),
        ("write", {"path": target, "content": "written\n"}),
        ("read", {"path": target}),  # an edit needs a read first
        ("edit", {"path": target, "old": "inside", "new": "edited"}),
        ("glob", {"pattern": "**/*"}),
        ("grep", {"regex": "MARKER|inside|written"}),
        ("save", {"note": "x"}),
    ]


def _texts(result: ToolExecutionResult) -> str:
    return "".join(block.text for block in result.content if isinstance(block, TextBlock))


@pytest.mark.parametrize("interpreter", ["sync", "asyncio", "trio"])
@pytest.mark.parametrize("kind", ["file", "folder"])
def test_no_byte_crosses_the_workspace_boundary_under_a_racing_process(
    tmp_path: Path, interpreter: Interpreter, kind: RaceKind, figures: Figures
) -> None:
    scene = Scene(tmp_path, kind)
    permissions = Permissions([Rule("edit", "*", "allow")])
    catalog = _catalog(Workspace(scene.root, permissions, state_dir=scene.state))
    racer = scene.race()
    leaked: list[str] = []
    crossed: Counter[str] = Counter()
    met: Counter[str] = Counter()
    try:
        for attempt in range(ATTEMPTS):
            for step, (name, arguments) in enumerate(_calls(kind)):
                call = ToolCall(f"c{attempt}-{step}", name, arguments, CancelSignal())
                text = _texts(_run(interpreter, catalog, call, f"{scene.state}/outputs"))
                if MARKER in text:
                    leaked.append(f"{name}: {text[:200]}")
                    crossed[name] += text.count(MARKER) * len(MARKER)
                met[name] += any(sign in text for sign in SWAP_SIGNS)
    finally:
        swaps = scene.end(racer)
    calls = Counter(name for name, _ in _calls(kind))
    for name, per_attempt in calls.items():
        tries = ATTEMPTS * per_attempt
        figures.race(name, f"{kind} swapped for a symlink", tries, crossed[name], met[name])
    assert swaps > 0  # the racer really raced
    assert leaked == []
    assert _snapshot(scene.outside) == scene.before
    assert not Path(scene.root, ".toolfx").exists()


# the in-memory file system: the check saw the tree before the swap -----------------------------


@final
class StaleCheck(ForwardingFiles):
    """A memory file system whose `resolve` answers as if no symlink were there: what the
    workspace's check saw before a racing process swapped a folder for a symlink."""

    async def resolve(self, path: str) -> str:
        return posixpath.normpath(path)


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("read", {"path": "dir/f.txt"}),
        ("write", {"path": "dir/f.txt", "content": "x"}),
        ("write", {"path": "dir/new/f.txt", "content": "x"}),
        ("glob", {"pattern": "**/*", "path": "dir"}),
        ("grep", {"regex": "M", "path": "dir"}),
        ("grep", {"regex": "M"}),
        ("glob", {"pattern": "**/*"}),
        ("save", {"note": "x"}),
    ],
)
def test_a_swap_after_the_check_is_refused_in_memory(name: str, arguments: dict[str, Any]) -> None:
    memory = MemoryFileSystem.from_files(
        {"/ws/a.txt": "a", "/outside/f.txt": MARKER, f"/outside/{MARKER}.txt": MARKER}
    )
    memory.add_symlink("/ws/dir", "../outside")
    before = memory.snapshot()
    permissions = Permissions([Rule("edit", "*", "allow")])
    catalog = _catalog(Workspace("/ws", permissions, state_dir="/state/ws"))
    runtime = SyncRuntime(
        approvals=lambda request: "rejected", files=StaleCheck(memory), spills=MemorySpills()
    )
    result = run_sync(execute(catalog, ToolCall("c", name, arguments, CancelSignal())), runtime)
    assert MARKER not in _texts(result)
    after = memory.snapshot()
    assert {path: data for path, data in after.items() if not path.startswith("/state/")} == before
    if name in ("read", "write"):
        assert _texts(result).startswith(f"{arguments['path']} changed while in use")
