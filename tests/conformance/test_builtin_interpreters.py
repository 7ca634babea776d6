"""Every conformance scenario under the sync interpreter, anyio on asyncio and on trio, and the
deterministic interpreter (virtual time, seeded interleavings)."""

from pathlib import Path

import pytest

from tests.conformance.builtin import BUILTIN, builtin_factory
from toolfx.testing import InterpreterFactory
from toolfx.testing.conformance import ConformanceSuite


@pytest.fixture(params=BUILTIN)
def interpreter_factory(request: pytest.FixtureRequest, tmp_path: Path) -> InterpreterFactory:
    return builtin_factory(request.param, tmp_path / "spills")


class TestBuiltinInterpreters(ConformanceSuite):
    """The kit's scenarios, each under the four built-in interpreters."""
