"""Fixtures of the security suite, and its report: `make security` prints the figures."""

from __future__ import annotations

import os

import pytest

from tests.security.figures import FIGURES, Figures
from tests.security.support import Interpreter


@pytest.fixture(params=["sync", "asyncio", "trio"])
def interpreter(request: pytest.FixtureRequest) -> Interpreter:
    """Every security test with a real runner runs under sync and anyio on both backends."""
    name: Interpreter = request.param
    return name


@pytest.fixture
def figures() -> Figures:
    """The figures of this run, for a test to record what it tried and what got through."""
    return FIGURES


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the figures when the run asks for them."""
    if os.environ.get("TOOLFX_SECURITY_REPORT") and (lines := FIGURES.lines()):
        terminalreporter.section("security figures")
        for line in lines:
            terminalreporter.write_line(line)
