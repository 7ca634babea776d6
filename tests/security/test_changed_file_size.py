"""`write` and `edit` over a huge existing file (a 2 GiB sparse file planted in the repository)
refuse it without reading its old content whole, under every interpreter."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.leaves_support import ROOT, LeafSession, catalog_of, text_of
from tests.security.figures import within_budget
from tests.unit.test_leaf_file_edges import CountingFiles
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import ToolExecutionFailure
from toolfx.interpreters._os.files import LocalFileSystem
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.leaves._files import MAX_CHANGED_FILE_BYTES
from toolfx.leaves._rules import Rule
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.workspace import Workspace

CALLS = (
    ("write", {"path": "big.txt", "content": "x\n"}),
    ("edit", {"path": "big.txt", "old": "a", "new": "b"}),
)


@pytest.mark.parametrize(("name", "arguments"), CALLS)
def test_a_huge_file_is_refused_reading_nothing_whole(
    tmp_path: Path, name: str, arguments: dict[str, str]
) -> None:
    root = os.path.realpath(tmp_path)
    with open(os.path.join(root, "big.txt"), "wb") as file:
        file.truncate(2 * 1024**3)
    files = CountingFiles(LocalFileSystem())
    workspace = Workspace(root, Permissions([Rule("edit", "*", "allow")]))
    call = ToolCall("c", name, dict(arguments), CancelSignal())
    result = within_budget(
        f"{name} over a 2 GiB sparse file",
        lambda: run_sync(execute(catalog_of(workspace), call), SyncRuntime(files=files)),
    )
    assert isinstance(result, ToolExecutionFailure)
    if name == "write":
        assert text_of(result) == "big.txt is over 64 MB; write and edit change smaller files only"
    assert files.read <= MAX_CHANGED_FILE_BYTES
    assert os.path.getsize(os.path.join(root, "big.txt")) == 2 * 1024**3


def test_the_size_limit_holds_in_memory() -> None:
    session = LeafSession(
        {f"{ROOT}/big.txt": b"a" * (MAX_CHANGED_FILE_BYTES + 1)}, rules=[Rule("edit", "*", "allow")]
    )
    message = text_of(session.call("write", path="big.txt", content="x"))
    assert message == "big.txt is over 64 MB; write and edit change smaller files only"
