"""How a batch's calls are grouped: each exclusive call alone, parallel-safe runs together.

Finding a call's mode may decode its arguments (a classifier reads them typed): the schedule keeps
that decoding for the call's run, so a batched call's arguments are validated once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, final

from toolfx.core.json import FrozenJson
from toolfx.core.jsonschema import ValidationFailure

if TYPE_CHECKING:
    from toolfx.core.pipeline._call import ToolCall
    from toolfx.core.registry import Catalog, ExecutionMode

__all__ = ["Decoding", "Schedule", "schedule"]

Decoding: TypeAlias = tuple[FrozenJson, Any] | ValidationFailure
"""A call's arguments decoded by its tool's parameters: the frozen JSON and the typed value, or
why they are invalid."""


@final
@dataclass(frozen=True, slots=True)
class Schedule:
    """A batch's call indexes in groups, and each call's decoding if finding its mode took one."""

    groups: list[list[int]]
    """Each exclusive call alone, each maximal run of parallel ones together, in order."""
    decodings: list[Decoding | None]
    """By call index: the arguments as the tool the call runs decoded them, else None."""


def schedule(catalog: Catalog, calls: Sequence[ToolCall]) -> Schedule:
    """Group call indexes: each exclusive call alone, each maximal run of parallel ones together."""
    groups: list[list[int]] = []
    decodings: list[Decoding | None] = []
    run: list[int] | None = None  # the parallel run the last call joined, if it was parallel
    view = catalog.view
    classified, visible = catalog.classified, view.tools.get
    direct, code = view.direct.get, view.code.get
    for index, call in enumerate(calls):
        if call.arguments_error is not None:  # the call snapshotted its arguments when built
            mode: ExecutionMode = "exclusive"
            decoding = None
        else:
            arguments: FrozenJson = call.arguments  # type: ignore[assignment]  # snapshotted
            mode, decoding = classified(call.name, arguments)
            runs = (direct if call.parent is None else code)(call.name)
            if decoding is not None and runs is not visible(call.name):
                decoding = None  # the call resolves to another tool (or none): not its decoding
        decodings.append(decoding)
        if mode != "parallel":
            groups.append([index])
            run = None
        elif run is None:
            run = [index]
            groups.append(run)
        else:
            run.append(index)
    return Schedule(groups, decodings)
