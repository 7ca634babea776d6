"""Code Mode engines: Monty's sandboxed workers, and the engine of a runtime that has none."""

from toolfx.interpreters.codemode._monty import MontyEngine, default_engine
from toolfx.interpreters.codemode._monty_output import BoundedOutput, OutputExceeded
from toolfx.interpreters.codemode._unavailable import UnavailableEngine

__all__ = ["BoundedOutput", "MontyEngine", "OutputExceeded", "UnavailableEngine", "default_engine"]
