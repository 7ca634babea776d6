"""`run_conformance` runs the suite without a test file of one's own and says what failed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import toolfx.testing
from tests.conformance.builtin import builtin_factory
from toolfx.core.runtime import Interpreter
from toolfx.interpreters.sync import SyncInterpreter, SyncRuntime
from toolfx.testing import Host, InterpreterFactory
from toolfx.testing.conformance import run_conformance

PLAIN_CALL = "test_a_plain_call_succeeds_with_value_and_rendered_content"
FIRST_CALLS = "plain_call or typed_failure_keeps"
"""A selection of two pipeline scenarios, run in this order."""


def test_a_conforming_interpreter_passes_every_scenario(tmp_path: Path) -> None:
    report = run_conformance(builtin_factory("deterministic", tmp_path), "-q")
    assert report.ok
    assert report.exit_code == pytest.ExitCode.OK
    assert PLAIN_CALL in report.passed
    assert len(set(report.passed)) == len(report.passed)


def test_an_interpreter_that_ignores_the_hosts_approvals_fails_those_scenarios() -> None:
    def deaf(host: Host) -> Interpreter:
        return SyncInterpreter(SyncRuntime(on_defect=host.report, spills=host.spills))

    report = run_conformance(deaf, "-q", "-k", "ask_runs_only_when_allowed")
    assert not report.ok
    assert report.exit_code == pytest.ExitCode.TESTS_FAILED
    assert report.passed == ()
    assert report.failed == tuple(
        f"test_ask_runs_only_when_allowed[{reply}]"
        for reply in (
            "allowed-once-True",
            "allowed-always-True",
            "rejected-False",
            "cancelled-False",
            "unavailable-False",
        )
    )


def test_a_factory_that_raises_fails_each_scenario_at_its_fixture() -> None:
    def broken(host: Host) -> Interpreter:
        raise RuntimeError("no interpreter here")

    report = run_conformance(broken, "-q", "-k", PLAIN_CALL)
    assert not report.ok
    assert report.exit_code == pytest.ExitCode.TESTS_FAILED
    assert (report.passed, report.failed) == ((), (PLAIN_CALL,))


def test_a_run_a_factory_interrupts_is_not_ok_though_no_scenario_failed(tmp_path: Path) -> None:
    working = builtin_factory("deterministic", tmp_path)
    built: list[Host] = []

    def interrupting(host: Host) -> Interpreter:
        built.append(host)
        if len(built) > 1:
            raise KeyboardInterrupt
        return working(host)

    report = run_conformance(interrupting, "-q", "-k", FIRST_CALLS)
    assert len(built) == 2
    assert (report.passed, report.failed) == ((PLAIN_CALL,), ())
    assert report.exit_code == pytest.ExitCode.INTERRUPTED
    assert not report.ok


def test_a_collection_error_is_not_ok_though_the_scenarios_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", [*sys.path])  # pytest puts the broken module's folder there
    broken = tmp_path / "test_conformance_collection_error.py"
    broken.write_text("import a_module_nobody_installed\n")
    factory = builtin_factory("deterministic", tmp_path)
    report = run_conformance(
        factory, "-q", "-k", PLAIN_CALL, "--continue-on-collection-errors", str(broken)
    )
    assert (report.passed, report.failed) == ((PLAIN_CALL,), ())
    assert report.exit_code == pytest.ExitCode.TESTS_FAILED
    assert not report.ok


def test_a_selection_that_runs_nothing_is_not_ok(tmp_path: Path) -> None:
    report = run_conformance(
        builtin_factory("deterministic", tmp_path), "-q", "-k", "no_such_scenario"
    )
    assert (report.passed, report.failed) == ((), ())
    assert report.exit_code == pytest.ExitCode.NO_TESTS_COLLECTED
    assert not report.ok


def test_the_suite_is_imported_under_its_own_name_and_sys_path_is_left_alone(
    tmp_path: Path,
) -> None:
    kit_parent = str(Path(toolfx.testing.__file__).parent.parent)
    factory: InterpreterFactory = builtin_factory("deterministic", tmp_path)
    assert run_conformance(factory, "-q", "-k", PLAIN_CALL).ok
    assert "toolfx.testing._collected" in sys.modules
    assert "testing" not in sys.modules
    assert kit_parent not in sys.path
