"""The file leaves at the edges: typed failures for odd paths, their own permissions, `read`
streaming only its window, and results that never echo what was written."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import pytest

from tests.leaves_support import ROOT, LeafSession, catalog_of, run_real, text_of
from tests.support import ForwardingFiles
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.runtime import CancelSignal, FileSystem
from toolfx.core.tools import (
    ErrorCode,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
)
from toolfx.interpreters._os.files import LocalFileSystem
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import MemoryFileSystem
from toolfx.leaves._read_window import CHUNK_BYTES, COUNT_AHEAD_BYTES
from toolfx.leaves._rules import Rule
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.workspace import Workspace


def failed(result: ToolExecutionResult, code: ErrorCode = ErrorCode.TOOL_ERROR) -> str:
    assert isinstance(result, ToolExecutionFailure), result
    assert result.error.code == code, result
    return result.error.message


def test_writing_a_path_with_a_trailing_slash_fails_and_leaves_the_file() -> None:
    session = LeafSession({f"{ROOT}/a.txt": "kept\n"}, rules=[Rule("edit", "*", "allow")])
    for path in ("a.txt/", "a.txt/.", "."):
        message = failed(session.call("write", path=path, content="x"), ErrorCode.INVALID_ARGS)
        assert message.startswith(f"path {path} names a folder")
    assert session.text(f"{ROOT}/a.txt") == "kept\n"


@pytest.mark.parametrize("name", ["read", "write", "edit"])
def test_a_symlink_loop_is_a_typed_failure_naming_the_path(name: str) -> None:
    session = LeafSession(rules=[Rule("edit", "*", "allow")])
    session.fs.add_symlink(f"{ROOT}/loop", "loop")
    arguments = {"read": {}, "write": {"content": "x"}, "edit": {"old": "a", "new": "b"}}[name]
    message = failed(session.call(name, path="loop", **arguments))
    assert message == "loop is a symlink loop (more than 40 symlinks to follow); nothing was done"


def test_a_nul_in_a_path_is_invalid_args_before_any_file_operation() -> None:
    session = LeafSession()
    message = failed(session.call("read", path="a\0b"), ErrorCode.INVALID_ARGS)
    assert message == "path contains a NUL character (at 1)"
    assert session.asked == []


@pytest.mark.parametrize(
    ("name", "arguments", "pattern"),
    [
        ("read", {"path": ".env"}, ".env"),
        ("glob", {"pattern": "*", "path": "src"}, "src"),
        ("grep", {"regex": "x", "path": "src"}, "src"),
    ],
)
def test_read_glob_and_grep_consult_their_own_permission(
    name: str, arguments: dict[str, str], pattern: str
) -> None:
    files = {f"{ROOT}/.env": "KEY=1\n", f"{ROOT}/src/x.py": "x\n"}
    allowed = LeafSession(files)
    assert isinstance(allowed.call(name, **arguments), ToolExecutionSuccess)
    assert allowed.asked == []
    denied = LeafSession(files, rules=[Rule(name, pattern, "deny")])
    assert failed(denied.call(name, **arguments), ErrorCode.DENIED).endswith(
        f"a rule denies {pattern}"
    )


def test_a_20_mb_write_succeeds_and_its_result_stays_within_the_limits() -> None:
    session = LeafSession(rules=[Rule("edit", "*", "allow")])
    content = "0123456789abcdef\n" * (20 * 1024 * 1024 // 17)
    result = session.call("write", path="big.txt", content=content)
    assert isinstance(result, ToolExecutionSuccess), result
    assert text_of(result) == f"Created big.txt ({len(content.splitlines())} lines)"
    assert len(repr(result.value)) < 200 * 1024
    assert len(repr(result.meta)) < 200 * 1024
    assert session.text(f"{ROOT}/big.txt") == content


class CountingFiles(ForwardingFiles):
    """A file system that counts the bytes `read_bytes` returns."""

    def __init__(self, files: FileSystem) -> None:
        super().__init__(files)
        self.read = 0

    async def read_bytes(
        self,
        path: str,
        *,
        within: str,
        offset: int = 0,
        limit: int | None = None,
        resolved: bool = False,
    ) -> bytes:
        data = await super().read_bytes(
            path, within=within, offset=offset, limit=limit, resolved=resolved
        )
        self.read += len(data)
        return data


def _read(files: FileSystem, root: str, **arguments: object) -> ToolExecutionResult:
    catalog = catalog_of(Workspace(root, Permissions()))
    call = ToolCall("c", "read", dict(arguments), CancelSignal())
    result: ToolExecutionResult = run_sync(execute(catalog, call), SyncRuntime(files=files))
    return result


def test_read_of_a_huge_text_file_reads_only_its_window_and_a_bounded_look_ahead() -> None:
    memory = MemoryFileSystem.from_files({"/ws/huge.txt": "a line of text\n" * 2_000_000})
    counting = CountingFiles(memory)
    result = _read(counting, "/ws", path="huge.txt", offset=10, limit=5)
    assert text_of(result).splitlines()[:5] == [f"{n:>6}\ta line of text" for n in range(10, 15)]
    assert text_of(result).endswith(
        "(huge.txt has more lines; this shows 10-14. Read on with offset=15.)"
    )
    assert counting.read <= COUNT_AHEAD_BYTES + 2 * CHUNK_BYTES


def test_read_of_a_2_gib_sparse_file_costs_only_the_first_chunk(tmp_path: Path) -> None:
    root = os.path.realpath(tmp_path)
    with open(os.path.join(root, "sparse.txt"), "wb") as file:
        file.write(b"header\n")
        file.truncate(2 * 1024**3)
    counting = CountingFiles(LocalFileSystem())
    result = _read(counting, root, path="sparse.txt")
    assert failed(result) == "sparse.txt is a binary file; read refuses it"
    assert counting.read <= CHUNK_BYTES


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_real_symlink_loop_and_a_trailing_slash_are_typed_failures(
    tmp_path: Path, backend: Literal["asyncio", "trio"]
) -> None:
    root = os.path.realpath(tmp_path)
    os.symlink("loop", os.path.join(root, "loop"))
    Path(root, "a.txt").write_text("kept\n")
    catalog = catalog_of(Workspace(root, Permissions([Rule("edit", "*", "allow")])))

    def call(name: str, **arguments: str) -> ToolExecutionResult:
        return run_real(catalog, ToolCall("c", name, arguments, CancelSignal()), backend)

    assert failed(call("read", path="loop")).startswith("loop is a symlink loop")
    assert failed(call("write", path="a.txt/", content="x"), ErrorCode.INVALID_ARGS)
    assert Path(root, "a.txt").read_text() == "kept\n"
