"""Without LangChain the distributions import, and the adapters name the extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest

_BLOCKED = "import sys; sys.modules['langchain_core'] = None; sys.modules['langgraph'] = None\n"


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _BLOCKED + code], capture_output=True, text=True, check=False
    )


def test_the_distributions_import_without_langchain() -> None:
    done = _python("import toolfx.core, toolfx.leaves, toolfx.interpreters")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        ("toolfx.interpreters.langchain", "toolfx-interpreters[langchain]"),
        ("toolfx.leaves.langchain", "toolfx-leaves[langchain]"),
    ],
)
def test_an_adapter_without_langchain_names_its_extra(module: str, extra: str) -> None:
    done = _python(f"import {module}")
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"ImportError: {module} needs langchain_core")
    assert last.endswith(f": install {extra}")
