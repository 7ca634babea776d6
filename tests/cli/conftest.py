"""In-process runs of the command line find no controlling terminal, even when the tests run in
one: an ask is answered by no one (as in CI), never by the developer's keyboard."""

from __future__ import annotations

import pytest

from toolfx.interpreters.cli import _commands


@pytest.fixture(autouse=True)
def no_controlling_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_commands, "open_terminal", lambda: None)
