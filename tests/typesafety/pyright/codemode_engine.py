"""Monty's Code Mode engine: what pyright infers, and what it refuses."""

from typing import assert_type

from pydantic_monty import Monty

from toolfx.core.runtime import CodeEngine, CodeLimits, CodeProgram, CodeSession, ProgramStep
from toolfx.interpreters import MontyEngine, SyncRuntime

engine: CodeEngine = MontyEngine(CodeLimits(seconds=5.0), pool=Monty(), suspensions=10)
session = engine.start(CodeProgram("1", "", frozenset(), engine.limits))
assert_type(session, CodeSession)
assert_type(session.begin(), ProgramStep)
SyncRuntime(code=MontyEngine())
MontyEngine(pool="pool")  # pyright: ignore[reportArgumentType]
MontyEngine(suspensions=1.5)  # pyright: ignore[reportArgumentType]
