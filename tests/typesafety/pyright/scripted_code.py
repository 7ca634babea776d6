"""The scripted Code Mode engine under pyright strict: scripts, pauses, rejections (as mypy)."""

from collections.abc import Generator
from typing import assert_type

from toolfx.core.runtime import CodeEngine, CodeLimits, CodeProgram
from toolfx.interpreters.sync import SyncRuntime
from toolfx.interpreters.testing import Pause, Rejected, ScriptedCode, ScriptedSession


def adds() -> Generator[Pause, object, object]:
    total = yield Pause.call("add", a=1, b=2)
    assert_type(total, object)
    return total


def numbers() -> Generator[int, object, object]:
    yield 1
    return None


program = CodeProgram("1", "", frozenset(), CodeLimits())
engine: CodeEngine = ScriptedCode({"await add(a=1, b=2)": adds, "(": Rejected("syntax", "bad")})
SyncRuntime(code=engine)
assert_type(ScriptedCode({}).start(program), ScriptedSession)

ScriptedCode({"1": numbers})  # pyright: ignore[reportArgumentType]
Pause.exceed("tool_calls")  # pyright: ignore[reportArgumentType]
Rejected("exception", "raised")  # pyright: ignore[reportArgumentType]
