"""The security suite's report: `make security` prints its figures after the run."""

from __future__ import annotations

import os

import pytest

from tests.security.figures import FIGURES, Figures


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
