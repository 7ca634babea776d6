"""Code Mode engines: Monty's sandboxed workers, and the engine of a runtime that has none."""

from toolfx.interpreters.codemode._monty import MontyEngine, default_engine
from toolfx.interpreters.codemode._unavailable import UnavailableEngine

__all__ = ["MontyEngine", "UnavailableEngine", "default_engine"]
