"""MCP integration tests run on both anyio backends (a module may narrow it)."""

from typing import Literal

import pytest

Backend = Literal["asyncio", "trio"]


@pytest.fixture(params=["asyncio", "trio"], scope="module")
def anyio_backend(request: pytest.FixtureRequest) -> Backend:
    """Each test here runs once on asyncio and once on trio."""
    backend: Backend = request.param
    return backend
