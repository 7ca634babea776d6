"""Monty's errors as `ProgramFailed`: rejections, exceptions, limits and lost workers.

Monty reports its limits as exceptions the program cannot catch, told apart by their words:
`TimeoutError: feed time limit exceeded`, `MemoryError: memory limit exceeded`,
`RecursionError: maximum recursion depth exceeded`, `RuntimeError: suspension limit N
exceeded` (and `MemoryError: the worker exceeded its memory limit and was terminated` when an
answer of the host's would not fit); what Monty measured (time taken, bytes wanted) follows a
colon and is left out of the message, which must not vary between runs. Any other exception (a
`TimeoutError` a tool call raised included) is the program's.
Syntax Monty cannot run yet (`yield`, `type X = ...`, class inheritance) fails before anything
runs with a `NotImplementedError` from its parser: a rejection, like a syntax error.

Monty's parser may refuse a program the checker passed (`Source is too deeply nested`), and a
syntax error in text the program gives `eval` or `exec`, uncaught, leaves Monty as a
`MontySyntaxError` too, not as the program's exception. Monty names the text of the latter
`<string>` (`Expected an expression (<string>, line 1)`): that one is the program's
`SyntaxError`, raised where it called `eval`; the others are rejections before anything ran.

Monty hands the program's value over only as deep as its recursion limit: whatever lies that
many containers down is replaced by the text `<deeply nested>` (a dict there by one whose key
and value are that text), and the program finishes. `cut_short` finds such a value, which ends
the program as the `recursion` limit rather than as a value the program never made.
"""

from __future__ import annotations

import re
from typing import Final

from pydantic_monty import (
    MontyCrashedError,
    MontyRuntimeError,
    MontySyntaxError,
    MontyTypingError,
)

from toolfx.core.runtime import CodeLimits, LimitName, ProgramFailed

__all__ = [
    "crashed",
    "cut_short",
    "output_exceeded",
    "raised",
    "rejected",
    "too_deep",
    "unparsed",
]

_DIAGNOSTIC: Final = re.compile(
    r"^[^\n]*?:(?P<line>\d+):(?P<column>\d+): (?P<level>\w+)\[(?P<code>[\w-]+)\]", re.MULTILINE
)
_UNSUPPORTED_SYNTAX: Final = "The monty syntax parser does not yet support"
_EVALUATED_TEXT: Final = re.compile(r"\(<string>, line \d+\)$")
_MEMORY_WORDS: Final = ("memory limit exceeded", "the worker exceeded its memory limit")
"""How Monty says the heap limit was hit: by the program, or by a value the host answered with
(the worker is then killed)."""
_CUT: Final = "<deeply nested>"
"""What Monty puts in place of the part of a value past the recursion limit."""


def rejected(error: MontyTypingError) -> ProgramFailed:
    """A program the checker refused (`syntax`, `type`): its diagnostics, its first error."""
    text = error.display()
    found = list(_DIAGNOSTIC.finditer(text))
    first = next((match for match in found if match["level"] == "error"), None)
    first = first or (found[0] if found else None)
    syntax = any(match["code"] == "invalid-syntax" for match in found)
    return ProgramFailed(
        "syntax" if syntax else "type",
        text.strip(),
        line=int(first["line"]) if first else None,
        column=int(first["column"]) if first else None,
    )


def raised(
    error: MontyRuntimeError, limits: CodeLimits, suspensions: int, output: str
) -> ProgramFailed:
    """A program ended by an exception: one of Monty's limits, unsupported syntax, or its own."""
    inner = error.exception()
    name = type(inner).__name__
    words = str(inner)
    line, column = _place(error)
    limit = _limit(name, words)
    if limit is not None:
        return ProgramFailed(
            "limit",
            f"{_sentence(limit, limits, suspensions)} ({name}: {_unmeasured(words)})",
            limit=limit,
            line=line,
            column=column,
            output=output,
        )
    if name == "NotImplementedError" and words.startswith(_UNSUPPORTED_SYNTAX):
        return ProgramFailed(
            "syntax", error.display("traceback"), line=line, column=column, output=output
        )
    return ProgramFailed(
        "exception",
        error.display("traceback"),
        exception=name,
        line=line,
        column=column,
        output=output,
    )


def unparsed(error: MontySyntaxError, output: str) -> ProgramFailed:
    """A syntax error past the checker: the program's (in text it evaluated), or a rejection."""
    line, column = _place(error)
    if _EVALUATED_TEXT.search(str(error)):
        return ProgramFailed(
            "exception",
            error.display("traceback"),
            exception="SyntaxError",
            line=line,
            column=column,
            output=output,
        )
    return ProgramFailed("syntax", error.display("traceback"), line=line, column=column)


def cut_short(value: object, depth: int) -> bool:
    """Whether Monty cut `value` at `depth` containers (its marker is that deep)."""
    level: list[object] = [value]
    for _ in range(depth):
        inner: list[object] = []
        for node in level:
            match node:
                case dict():
                    inner.extend(node.keys())
                    inner.extend(node.values())
                case list() | tuple() | set() | frozenset():
                    inner.extend(node)
                case _:
                    pass
        if not inner:
            return False
        level = inner
    return _CUT in level


def too_deep(limits: CodeLimits, output: str) -> ProgramFailed:
    """A program whose value is nested past its recursion limit (Monty cut it there)."""
    return ProgramFailed(
        "limit",
        f"The program's value is nested too deeply: it may be {limits.recursion_depth} "
        "containers deep (its recursion limit).",
        limit="recursion",
        output=output,
    )


def crashed(error: MontyCrashedError, limits: CodeLimits, output: str) -> ProgramFailed:
    """A program whose worker died: killed by the pool's deadline (`time`) or lost."""
    if error.timed_out:
        return ProgramFailed(
            "limit",
            f"{_sentence('time', limits, 0)} ({error})",
            limit="time",
            output=output,
        )
    return ProgramFailed("crashed", f"The program's sandbox worker died: {error}", output=output)


def output_exceeded(limits: CodeLimits, output: str) -> ProgramFailed:
    """A program stopped for printing more than `limits.output_bytes`."""
    return ProgramFailed("limit", _sentence("output", limits, 0), limit="output", output=output)


def _place(error: MontyRuntimeError | MontySyntaxError) -> tuple[int | None, int | None]:
    """The line and column in the program's own text (not in an `eval`'s) the error came from."""
    frames = error.traceback()
    own = [frame for frame in frames if frames and frame.filename == frames[0].filename]
    return (own[-1].line, own[-1].column) if own else (None, None)


def _unmeasured(words: str) -> str:
    """Monty's words for a limit without what it measured (`...: 200.02ms > 200ms`): the same
    program gives the same message, so its records are the same under every interpreter."""
    return words.split(":", 1)[0]


def _limit(name: str, words: str) -> LimitName | None:
    match name:
        case "TimeoutError" if "time limit exceeded" in words:
            return "time"
        case "MemoryError" if words.startswith(_MEMORY_WORDS):
            return "memory"
        case "RecursionError" if words.startswith("maximum recursion depth exceeded"):
            return "recursion"
        case "RuntimeError" if words.startswith("suspension limit"):
            return "pauses"
        case _:
            return None


def _sentence(limit: LimitName, limits: CodeLimits, suspensions: int) -> str:
    match limit:
        case "time":
            return (
                f"The program ran out of time: it may compute for {limits.seconds:g} seconds "
                "(time waiting for its tool calls does not count)."
            )
        case "memory":
            return f"The program ran out of memory: it may hold {limits.memory_bytes} bytes."
        case "recursion":
            return (
                f"The program recursed too deeply: its stack may be {limits.recursion_depth} deep."
            )
        case "output":
            return (
                f"The program printed more than {limits.output_bytes} bytes (UTF-8); "
                "its output is cut there."
            )
        case _:
            return (
                f"The program paused for the host more than {suspensions} times "
                "(tool calls, clock reads and sleeps together)."
            )
