"""The pyright-strict lane of the typesafety suite: every case file in `pyright/` checks clean.

A case states an inference with `typing.assert_type` and a rejection with
`# pyright: ignore[rule]` on the line that must fail; `reportUnnecessaryTypeIgnoreComment` makes
an expected error that stops firing (or fires under another rule) fail the lane, as mypy's `# E:`
does in the .yml cases. By hand: `.venv/bin/pyright -p tests/typesafety/pyright`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

CASES = Path(__file__).parent / "pyright"
CONFIG = CASES / "pyrightconfig.json"


def pyright(project: Path) -> list[dict[str, object]]:
    """Pyright's diagnostics for one project folder, run strict under this interpreter."""
    completed = subprocess.run(
        [sys.executable, "-m", "pyright", "--outputjson", "--pythonpath", sys.executable],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "PYRIGHT_PYTHON_IGNORE_WARNINGS": "1"},
        check=False,
    )
    try:
        report = json.loads(completed.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"pyright did not run:\n{completed.stdout}\n{completed.stderr}")
    diagnostics: list[dict[str, object]] = report["generalDiagnostics"]
    return diagnostics


@cache
def lane() -> list[dict[str, object]]:
    """The diagnostics of the whole lane, computed once per session."""
    return pyright(CASES)


def shown(diagnostics: list[dict[str, object]]) -> str:
    """Diagnostics as pyright prints them: file:line, rule, message."""
    lines = []
    for diagnostic in diagnostics:
        start = diagnostic["range"]["start"]  # type: ignore[index]
        lines.append(
            f"{Path(str(diagnostic['file'])).name}:{start['line'] + 1}: "
            f"{diagnostic.get('rule', diagnostic['severity'])}: {diagnostic['message']}"
        )
    return "\n".join(lines)


@pytest.mark.parametrize("case", sorted(CASES.glob("*.py")), ids=lambda path: path.stem)
def test_case_file_checks_clean_under_pyright_strict(case: Path) -> None:
    found = [d for d in lane() if Path(str(d["file"])) == case]
    if found:
        pytest.fail(shown(found), pytrace=False)


def test_an_expected_error_that_stops_firing_fails_the_lane(tmp_path: Path) -> None:
    shutil.copy(CONFIG, tmp_path / CONFIG.name)
    (tmp_path / "case.py").write_text(
        "fine: int = 1  # pyright: ignore[reportAssignmentType]\n"
        "wrong: int = 'x'  # pyright: ignore[reportCallIssue]\n"
    )
    rules = sorted(str(d.get("rule")) for d in pyright(tmp_path))
    assert rules == [
        "reportAssignmentType",
        "reportUnnecessaryTypeIgnoreComment",
        "reportUnnecessaryTypeIgnoreComment",
    ]


def test_a_wrong_body_is_reported_against_the_plain_body_shape(tmp_path: Path) -> None:
    shutil.copy(CONFIG, tmp_path / CONFIG.name)
    (tmp_path / "case.py").write_text(
        "from typing import TypedDict\n"
        "from toolfx.core import Output, ToolRunContext, define_tool\n"
        "class Args(TypedDict):\n"
        "    path: str\n"
        "def body(args: Args, ctx: ToolRunContext) -> str:\n"
        "    return args['path']\n"
        "define_tool(name='t', description='', parameters=Args, output=Output(int), execute=body)\n"
    )
    [diagnostic] = pyright(tmp_path)
    message = str(diagnostic["message"])
    assert diagnostic["rule"] == "reportArgumentType"
    assert 'is not assignable to type "Body[Args, int]"' in message
    assert '"str" is not assignable to "int"' in message
