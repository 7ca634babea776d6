"""The conformance suite: every scenario an interpreter must pass, as pytest tests to run.

`ConformanceSuite` is the scenarios as a pytest class to subclass with an `interpreter_factory`
fixture; `run_conformance` runs them in this process without a test file of one's own and returns
a `ConformanceReport`: the scenarios that passed and failed, and pytest's exit code. This module
needs pytest (the `testing` extra of toolfx-interpreters); the rest of `toolfx.testing` does not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, final

from toolfx.testing._extra import missing_extra

try:
    import pytest
except ImportError as _missing:
    raise missing_extra(__name__, _missing) from _missing

from toolfx.testing._host import InterpreterFactory
from toolfx.testing._scenarios_bounding import BoundingScenarios
from toolfx.testing._scenarios_codemode import CodeModeScenarios
from toolfx.testing._scenarios_codemode_log import CodeLogScenarios
from toolfx.testing._scenarios_codemode_outcomes import CodeOutcomeScenarios
from toolfx.testing._scenarios_faults import FaultScenarios
from toolfx.testing._scenarios_journal import JournalScenarios
from toolfx.testing._scenarios_journal_asks import JournalAskScenarios
from toolfx.testing._scenarios_journal_code import JournalCodeScenarios
from toolfx.testing._scenarios_materialization import MaterializationScenarios
from toolfx.testing._scenarios_pipeline import PipelineScenarios
from toolfx.testing._scenarios_progress import ProgressScenarios
from toolfx.testing._scenarios_remote import RemoteScenarios

__all__ = ["ConformanceReport", "ConformanceSuite", "run_conformance"]

COLLECTED: Final = Path(__file__).with_name("_collected.py")
"""The test module `run_conformance` has pytest collect: the suite under a name pytest collects."""


class ConformanceSuite(
    PipelineScenarios,
    MaterializationScenarios,
    ProgressScenarios,
    BoundingScenarios,
    FaultScenarios,
    CodeModeScenarios,
    CodeOutcomeScenarios,
    CodeLogScenarios,
    JournalScenarios,
    JournalAskScenarios,
    JournalCodeScenarios,
    RemoteScenarios,
):
    """Every scenario an interpreter must pass, as pytest test methods.

    Subclass it in a test module under a name pytest collects (`class TestMine(ConformanceSuite)`)
    and give it an `interpreter_factory` fixture (in the class, the module or a conftest) that
    returns an `InterpreterFactory`: each scenario calls it once with its `Host` and runs its
    descriptions on the `Interpreter` it builds. A parametrized fixture runs every scenario
    against each of its interpreters.
    """


@final
@dataclass(frozen=True, slots=True)
class ConformanceReport:
    """What a conformance run gave: the scenarios that passed and failed, and pytest's exit code.

    Scenarios are named with their parameters. The exit code tells a run that could not test
    anything (a collection or usage error, an interrupted run, a selection that ran nothing)
    from one that passed.
    """

    passed: tuple[str, ...]
    failed: tuple[str, ...]
    exit_code: int | pytest.ExitCode

    @property
    def ok(self) -> bool:
        """Whether pytest's run was OK: some scenario ran and none failed."""
        return self.exit_code == pytest.ExitCode.OK and bool(self.passed) and not self.failed


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
    """Run every conformance scenario against the interpreters `factory` builds, in this process.

    `arguments` go to pytest (`"-x"`, `"-k", "timeout"`); the report says which scenarios passed
    and failed and carries pytest's exit code.
    """
    plugin = _Plugin(factory)
    isolated = ["-c", os.devnull, "--rootdir", str(COLLECTED.parent), "--noconftest"]
    # toolfx is a namespace package: without this option pytest imports the suite as a second,
    # top-level `testing` package (shadowing any `testing` of the user's)
    by_its_name = ["-o", "consider_namespace_packages=true"]
    quiet = ["-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning"]
    options = [*isolated, *by_its_name, *quiet, *arguments]
    exit_code = pytest.main([str(COLLECTED), *options], [plugin])
    return ConformanceReport(tuple(plugin.passed), tuple(plugin.failed), exit_code)
