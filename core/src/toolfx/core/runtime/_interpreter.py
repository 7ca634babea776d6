"""The one shape every interpreter has: it performs a description and gives its result."""

from __future__ import annotations

from typing import Protocol, TypeVar, runtime_checkable

from toolfx.core.runtime._description import Description

__all__ = ["Interpreter"]

T = TypeVar("T")


@runtime_checkable
class Interpreter(Protocol):
    """Performs descriptions: each `run` gives the description's result or raises what it raised."""

    def run(self, description: Description[T]) -> T:
        """Perform `description` to completion on this interpreter's runtime."""
        ...
