"""In-process runs of the command line find no controlling terminal, even when the tests run in
one: an ask is answered by no one (as in CI), never by the developer's keyboard."""

from __future__ import annotations

import pytest

from toolfx.interpreters.cli import _asking


@pytest.fixture(autouse=True)
def no_controlling_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_asking, "open_terminal", lambda: None)
