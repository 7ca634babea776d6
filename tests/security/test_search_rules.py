"""Deny rules on a file hold when a search names its folder: grep and glob over `.` or a folder
holding a denied file (or a symlink alias of it) show none of it, under every interpreter."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.leaves_support import ROOT, LeafSession, catalog_of, text_of, value_of
from tests.security.figures import Figures
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import ToolExecutionResult, ToolExecutionSuccess
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.leaves._rules import Rule
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.workspace import Workspace

SECRET = "SECRET=7f3a"
RULE_SETS = {
    "read": (Rule("read", ".env", "deny"),),
    "grep": (Rule("grep", "*.env", "deny"),),
    "glob": (Rule("glob", ".env", "deny"),),
    "ask": (Rule("read", ".env", "ask"),),
}
SEARCHES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("grep", {"regex": "SECRET"}),
    ("grep", {"regex": "SECRET", "path": "src"}),
    ("grep", {"regex": "SECRET", "path": "./src/../src/alias"}),
    ("grep", {"regex": "SECRET", "include": "*"}),
    ("glob", {"pattern": "**/*"}),
    ("glob", {"pattern": "**/.env"}),
)
Where = Literal["sync", "asyncio", "trio", "deterministic"]


def _real(tmp_path: Path, where: Where, rules: tuple[Rule, ...]) -> Any:
    root = Path(os.path.realpath(tmp_path / "ws"))
    (root / "src").mkdir(parents=True)
    (root / ".env").write_text(f"{SECRET}\n")
    (root / "src" / "x.py").write_text("x\n")
    (root / "src" / "alias").symlink_to("../.env")
    catalog = catalog_of(Workspace(str(root), Permissions(rules)))

    def call(name: str, arguments: dict[str, Any]) -> ToolExecutionResult:
        description = execute(catalog, ToolCall("c", name, arguments, CancelSignal()))
        if where == "asyncio" or where == "trio":  # noqa: PLR1714 (narrows for mypy)
            return run_anyio(description, where, AnyioRuntime(approvals=lambda request: "rejected"))
        return run_sync(description, SyncRuntime(approvals=lambda request: "rejected"))

    return call


def _memory(rules: tuple[Rule, ...]) -> Any:
    session = LeafSession(
        {f"{ROOT}/.env": f"{SECRET}\n", f"{ROOT}/src/x.py": "x\n"},
        rules=rules,
        replies=lambda request: "rejected",
    )
    session.fs.add_symlink(f"{ROOT}/src/alias", "../.env")
    return lambda name, arguments: session.call(name, **arguments)


def _shows_secret(name: str, rules: str, result: ToolExecutionResult) -> bool:
    """Whether a search showed what the rule set keeps: glob rules keep the name from glob,
    the others keep the content from grep."""
    if name == "grep":
        return rules != "glob" and SECRET in text_of(result)
    if rules != "glob" or not isinstance(result, ToolExecutionSuccess):
        return False
    return any(path.endswith((".env", "alias")) for path in value_of(result)["paths"])


@pytest.mark.parametrize("where", ["sync", "asyncio", "trio", "deterministic"])
@pytest.mark.parametrize("rules", list(RULE_SETS))
def test_a_search_over_a_folder_never_shows_a_file_a_rule_keeps(
    tmp_path: Path, figures: Figures, where: Where, rules: str
) -> None:
    call = (
        _memory(RULE_SETS[rules])
        if where == "deterministic"
        else _real(tmp_path, where, RULE_SETS[rules])
    )
    shown = [
        name for name, arguments in SEARCHES if _shows_secret(name, rules, call(name, arguments))
    ]
    figures.bypass(f"search a folder holding a {rules}-ruled file", len(SEARCHES), len(shown))
    assert shown == []


def test_withheld_files_are_counted_and_said() -> None:
    session = LeafSession(
        {f"{ROOT}/.env": f"{SECRET}\n", f"{ROOT}/a.txt": "SECRET in a\n"},
        rules=[Rule("read", ".env", "deny")],
    )
    result = session.call("grep", regex="SECRET")
    assert isinstance(result, ToolExecutionSuccess)
    assert value_of(result)["withheld"] == 1
    assert text_of(result).endswith("(1 file withheld by permission rules.)")
