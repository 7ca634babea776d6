"""What a program prints, kept up to `CodeLimits.output_bytes` (UTF-8), in every engine.

Monty hands printed text to a callback between turns of the worker. This one keeps the text
until the limit, then keeps the prefix that fits, marks the overflow and raises: Monty ends the
program there (the program cannot catch it), and the session reports the `output` limit.
Monty's own `CollectString(max_bytes)` fails the same way but drops everything collected and
says only `MemoryError: memory limit exceeded`, the same words as the heap limit.
"""

from __future__ import annotations

from typing import Literal, final

__all__ = ["BoundedOutput", "OutputExceeded"]


@final
class OutputExceeded(Exception):
    """Raised into Monty's print path once the program printed more than it may."""


@final
class BoundedOutput:
    """A print callback that keeps at most `limit` bytes and stops the program past them."""

    __slots__ = ("_exceeded", "_limit", "_parts", "_size")

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._parts: list[str] = []
        self._size = 0
        self._exceeded = False

    def __call__(self, stream: Literal["stdout", "stderr"], text: str) -> None:
        """Keep `text` (either stream) while it fits; else keep what fits and stop the program."""
        encoded = text.encode("utf-8", "surrogatepass")
        room = self._limit - self._size
        if len(encoded) <= room:
            self._parts.append(text)
            self._size += len(encoded)
            return
        self._parts.append(encoded[:room].decode("utf-8", "ignore"))
        self._size = self._limit
        self._exceeded = True
        raise OutputExceeded(f"the program printed more than {self._limit} bytes")

    @property
    def exceeded(self) -> bool:
        """Whether the program printed more than the limit."""
        return self._exceeded

    @property
    def text(self) -> str:
        """Everything kept so far."""
        return "".join(self._parts)
