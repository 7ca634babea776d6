"""Foreign awaits: what an interpreter says when a description awaits outside the Runtime."""

from __future__ import annotations

import types
from collections.abc import Coroutine
from typing import Any, Final

__all__ = ["REPR_LIMIT", "ForeignAwaitError", "truncated"]

REPR_LIMIT: Final = 200
"""How many characters of a repr an interpreter's message shows."""

_CHAIN_LIMIT: Final = 1000
"""How deep the search for the innermost await goes (a guard against odd awaitables)."""


class ForeignAwaitError(RuntimeError):
    """A defect: a description awaited something that is not one of its interpreter's traps."""

    def __init__(
        self, interpreter: str, coroutine: Coroutine[Any, Any, Any], yielded: object, advice: str
    ) -> None:
        self.interpreter = interpreter
        self.awaited: str = _awaited(coroutine)
        self.yielded: str = truncated(repr(yielded))
        super().__init__(
            f"{interpreter} cannot run this description: it awaited {self.awaited}, which"
            f" yielded {self.yielded}. Only the Runtime's capabilities suspend there, so this"
            f" awaitable comes from outside the Runtime (asyncio, trio or anyio); {advice}"
        )


def truncated(text: str, limit: int = REPR_LIMIT) -> str:
    """`text` cut to `limit` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _awaited(coroutine: Coroutine[Any, Any, Any]) -> str:
    """What the innermost suspended coroutine awaits, and that coroutine's `module.qualname`."""
    holder: Coroutine[Any, Any, Any] = coroutine
    awaited: object = getattr(coroutine, "cr_await", None)
    for _ in range(_CHAIN_LIMIT):
        if isinstance(awaited, types.CoroutineType) and awaited.cr_await is not None:
            holder, awaited = awaited, awaited.cr_await
        elif isinstance(awaited, types.GeneratorType) and awaited.gi_yieldfrom is not None:
            awaited = awaited.gi_yieldfrom
        else:
            break
    frame = getattr(holder, "cr_frame", None)
    module = frame.f_globals.get("__name__") if isinstance(frame, types.FrameType) else None
    name = getattr(holder, "__qualname__", type(holder).__qualname__)
    where = f"{module}.{name}()" if isinstance(module, str) else f"{name}()"
    return f"{truncated(repr(awaited))} in {truncated(where)}"
