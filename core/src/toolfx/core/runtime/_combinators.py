"""Many descriptions as one: run them in order, or as the runtime's children, results in order.

`gather` without a limit runs the descriptions one after another in the calling task: no child
task, no capability, nothing but the awaits themselves. With a `limit` it hands them to
`Runtime.gather` (as `execute_batch` does with a turn's parallel calls): each runs in a child task,
at most `limit` at once, and a failure is raised once the running ones have finished, as the
interpreter's `gather` rules say. Either way the results come in the descriptions' order.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import TypeVar

from toolfx.core.runtime._description import Description
from toolfx.core.runtime._runtime import Runtime

__all__ = ["gather", "traverse"]

T = TypeVar("T")
U = TypeVar("U")


def gather(
    descriptions: Iterable[Description[T]], *, limit: int | None = None
) -> Description[tuple[T, ...]]:
    """Their results in order: run one after another, or `limit` at once as runtime children."""
    if limit is not None and limit < 1:
        raise ValueError(f"gather needs a limit of at least 1, not {limit}")
    programs = tuple(description.program for description in descriptions)
    if limit is None:

        async def in_order(runtime: Runtime) -> tuple[T, ...]:
            return tuple([await program(runtime) for program in programs])

        return Description(in_order)
    concurrency = limit

    async def as_children(runtime: Runtime) -> tuple[T, ...]:
        thunks = [functools.partial(program, runtime) for program in programs]
        return tuple(await runtime.gather(thunks, concurrency))

    return Description(as_children)


def traverse(
    items: Iterable[T], function: Callable[[T], Description[U]], *, limit: int | None = None
) -> Description[tuple[U, ...]]:
    """The description of `function` over every item, gathered: see `gather`."""
    return gather([function(item) for item in items], limit=limit)
