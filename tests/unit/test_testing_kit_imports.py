"""`toolfx.testing` ships with the interpreters: it may import core and the interpreters, never
the leaves (the two distributions never import each other). Its face needs neither pytest nor
hypothesis; the modules that do name the extra that installs them."""

from __future__ import annotations

import subprocess
import sys

import pytest

import toolfx.testing


def _python(code: str, *refused: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in a fresh interpreter in which importing any of `refused` fails."""
    refuse = f"import sys; sys.modules.update(dict.fromkeys({refused!r}))"
    return subprocess.run(
        [sys.executable, "-c", f"{refuse}\n{code}"], capture_output=True, text=True, check=False
    )


def test_importing_the_kit_imports_no_leaf() -> None:
    probe = (
        "import sys, toolfx.testing; "
        "print(sorted(m for m in sys.modules if m.startswith('toolfx.leaves')))"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert found.strip() == "[]"


def test_the_kit_imports_without_pytest_or_hypothesis() -> None:
    probe = "import toolfx.testing as kit; print(*(n for n in kit.__all__ if hasattr(kit, n)))"
    without = ("pytest", "_pytest", "hypothesis")
    refused = _python("import pytest", *without)
    assert "ModuleNotFoundError" in refused.stderr  # the refusal works
    run = _python(probe, *without)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == list(toolfx.testing.__all__)
    assert "FaultyRuntime" in run.stdout.split()


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        ("toolfx.testing.conformance", "pytest"),
        ("toolfx.testing.laws", "hypothesis"),
        ("toolfx.testing.strategies", "hypothesis"),
    ],
)
def test_a_module_that_needs_an_extra_names_it_when_missing(module: str, extra: str) -> None:
    probe = (
        "try:\n"
        f"    import {module}\n"
        "except ImportError as error:\n"
        "    print(type(error).__name__, error.name, error, sep='|')\n"
    )
    run = _python(probe, extra)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().split("|") == [
        "ImportError",
        extra,
        f"{module} needs {extra}: install toolfx-interpreters[testing]",
    ]
