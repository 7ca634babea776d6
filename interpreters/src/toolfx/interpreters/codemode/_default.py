"""The engine a runtime uses when none is given."""

from __future__ import annotations

from toolfx.core.runtime import CodeEngine
from toolfx.interpreters.codemode._unavailable import UnavailableEngine

__all__ = ["default_engine"]


def default_engine() -> CodeEngine:
    """Monty's engine when the `codemode` extra is installed, else one that says to install it."""
    return UnavailableEngine()
