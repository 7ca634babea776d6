"""Code Mode engines: Monty's sandboxed workers, and the engine of a runtime that has none."""

from toolfx.interpreters.codemode._default import default_engine
from toolfx.interpreters.codemode._unavailable import UnavailableEngine

__all__ = ["UnavailableEngine", "default_engine"]
