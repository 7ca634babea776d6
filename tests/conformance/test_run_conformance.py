"""`run_conformance` runs the suite without a test file of one's own and says what failed."""

from __future__ import annotations

from pathlib import Path

from tests.conformance.builtin import builtin_factory
from toolfx.core.runtime import Interpreter
from toolfx.interpreters.sync import SyncInterpreter, SyncRuntime
from toolfx.testing import Host
from toolfx.testing.conformance import run_conformance


def test_a_conforming_interpreter_passes_every_scenario(tmp_path: Path) -> None:
    report = run_conformance(builtin_factory("deterministic", tmp_path), "-q")
    assert report.ok
    assert "test_a_plain_call_succeeds_with_value_and_rendered_content" in report.passed
    assert len(set(report.passed)) == len(report.passed)


def test_an_interpreter_that_ignores_the_hosts_approvals_fails_those_scenarios() -> None:
    def deaf(host: Host) -> Interpreter:
        return SyncInterpreter(SyncRuntime(on_defect=host.report, spills=host.spills))

    report = run_conformance(deaf, "-q", "-k", "ask_runs_only_when_allowed_once")
    assert not report.ok
    assert report.passed == ()
    assert report.failed == tuple(
        f"test_ask_runs_only_when_allowed_once[{reply}]"
        for reply in ("allowed-once-True", "rejected-False", "cancelled-False", "unavailable-False")
    )
