"""Fixtures of the security suite."""

from __future__ import annotations

import pytest

from tests.security.support import Interpreter


@pytest.fixture(params=["sync", "asyncio", "trio"])
def interpreter(request: pytest.FixtureRequest) -> Interpreter:
    """Every security test with a real runner runs under sync and anyio on both backends."""
    name: Interpreter = request.param
    return name
