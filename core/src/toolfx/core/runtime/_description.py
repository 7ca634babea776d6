"""Descriptions: inert programs over a Runtime, performed only when an interpreter runs them."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar, final

if TYPE_CHECKING:
    from toolfx.core.runtime._runtime import Runtime

__all__ = ["Description", "new_description"]

T_co = TypeVar("T_co", covariant=True)
U = TypeVar("U")


@final
@dataclass(frozen=True, slots=True, init=False)
class Description(Generic[T_co]):
    """A program that needs a Runtime; building or composing one performs nothing."""

    program: Callable[[Runtime], Coroutine[Any, Any, T_co]]
    eager: Callable[[Runtime], T_co | Coroutine[Any, Any, T_co]] | None = field(
        default=None, compare=False
    )
    """The same program, started at once: its value when it has it without waiting, else the
    coroutine that finishes it (an interpreter may use it in place of `program`, sparing a
    coroutine for what never waits). Only for programs whose value is never a coroutine."""

    # Stores through the slot descriptors: one is built per call, and the generated frozen
    # __init__ (object.__setattr__) costs twice as much. tests/unit/test_slot_stores.py checks
    # the parameters match the fields.
    def __init__(
        self,
        program: Callable[[Runtime], Coroutine[Any, Any, T_co]],
        eager: Callable[[Runtime], T_co | Coroutine[Any, Any, T_co]] | None = None,
    ) -> None:
        _set_program(self, program)
        _set_eager(self, eager)

    @staticmethod
    def of(value: U) -> Description[U]:
        """A description that yields `value` and does nothing else."""

        async def program(runtime: Runtime) -> U:
            return value

        return Description(program)

    def map(self, function: Callable[[T_co], U]) -> Description[U]:
        """A description whose result is `function` of this one's."""
        program = self.program

        async def mapped(runtime: Runtime) -> U:
            return function(await program(runtime))

        return Description(mapped)

    def bind(self, function: Callable[[T_co], Description[U]]) -> Description[U]:
        """A description that runs this one, then the one `function` builds from its result."""
        program = self.program

        async def bound(runtime: Runtime) -> U:
            return await function(await program(runtime)).program(runtime)

        return Description(bound)


_set_program = Description.__dict__["program"].__set__
_set_eager = Description.__dict__["eager"].__set__


def new_description(
    program: Callable[[Runtime], Coroutine[Any, Any, T_co]],
    eager: Callable[[Runtime], T_co | Coroutine[Any, Any, T_co]] | None,
) -> Description[T_co]:
    """`Description(program, eager)` at the cost of a function call (the constructor's stores go
    through the slot descriptors: a hot path builds one per call)."""
    draft: _DescriptionDraft[T_co] = _DescriptionDraft()
    draft.program = program
    draft.eager = eager
    draft.__class__ = Description  # type: ignore[assignment]  # (it is one now)
    return draft  # type: ignore[return-value]


@final
class _DescriptionDraft(Generic[T_co]):
    """A `Description` being built: the same slots (and base, as `__class__` assignment asks),
    stored with plain attribute stores. Every field is stored before the assignment."""

    __slots__ = Description.__slots__
    program: Callable[[Runtime], Coroutine[Any, Any, T_co]]
    eager: Callable[[Runtime], T_co | Coroutine[Any, Any, T_co]] | None
