"""Running the conformance suite without a test file of one's own: which scenarios passed."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import final

import pytest

from toolfx.testing import _collected
from toolfx.testing._host import InterpreterFactory

__all__ = ["ConformanceReport", "run_conformance"]


@final
@dataclass(frozen=True, slots=True)
class ConformanceReport:
    """The scenarios that passed and those that failed, each named with its parameters."""

    passed: tuple[str, ...]
    failed: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Whether some scenario ran and none failed."""
        return bool(self.passed) and not self.failed


@final
@dataclass(slots=True)
class _Plugin:
    """Gives the suite its `interpreter_factory` and notes each scenario's outcome."""

    factory: InterpreterFactory
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    @pytest.fixture
    def interpreter_factory(self) -> InterpreterFactory:
        """The factory `run_conformance` was given."""
        return self.factory

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Note a scenario as failed when any phase fails, as passed when its call passes."""
        name = report.nodeid.rsplit("::", 1)[-1]
        if report.failed and name not in self.failed:
            self.failed.append(name)
        elif report.when == "call" and report.passed:
            self.passed.append(name)


def run_conformance(factory: InterpreterFactory, *arguments: str) -> ConformanceReport:
    """Run every conformance scenario against the interpreters `factory` builds, in this
    process, and say which passed; `arguments` go to pytest (`"-x"`, `"-k", "timeout"`)."""
    plugin = _Plugin(factory)
    module = Path(_collected.__file__)
    isolated = ["-c", os.devnull, "--rootdir", str(module.parent), "--noconftest"]
    quiet = ["-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning"]
    pytest.main([str(module), *isolated, *quiet, *arguments], [plugin])
    return ConformanceReport(tuple(plugin.passed), tuple(plugin.failed))
