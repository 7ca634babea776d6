"""`Description` as a returns container, so returns' `check_all_laws` checks its laws.

`LawfulDescription` wraps a description in returns' `Container1` interface (map, apply, bind,
from_value). Two are equal when running each once on a fresh `DeterministicInterpreter` gives
equal results and equal traces: the same value after the same capabilities in the same order at
the same virtual times. `lawful_descriptions` draws descriptions that checkpoint and sleep before
they yield, so the laws are checked on effects, not only on pure values::

    check_all_laws(LawfulDescription, container_strategy=lawful_descriptions)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar, final

from returns.interfaces.container import Container1
from returns.primitives.container import BaseContainer
from returns.primitives.hkt import Kind1, KindN, SupportsKind1, dekind

from toolfx.core.runtime import Description, Runtime
from toolfx.interpreters.testing import DeterministicInterpreter, TraceEvent
from toolfx.testing._extra import missing_extra

try:
    from hypothesis import strategies as st
except ImportError as _missing:
    raise missing_extra(__name__, _missing) from _missing

__all__ = ["LawfulDescription", "lawful_descriptions"]

T = TypeVar("T")
U = TypeVar("U")
_Value = TypeVar("_Value")

PAUSES: Final = (0.0, 0.5, 1.0)
"""The virtual sleeps a drawn description takes (0: a checkpoint instead)."""


@final
class LawfulDescription(
    BaseContainer,
    SupportsKind1["LawfulDescription[Any]", T],
    Container1[T],
):
    """A description in returns' container interfaces; equal when running both gives equal runs."""

    __slots__ = ()

    _inner_value: Description[T]

    def __init__(self, description: Description[T]) -> None:
        super().__init__(description)

    @property
    def description(self) -> Description[T]:
        """The wrapped description."""
        return self._inner_value

    @classmethod
    def from_value(cls, inner_value: U) -> LawfulDescription[U]:
        """The description that yields `inner_value` and does nothing else."""
        return LawfulDescription(Description.of(inner_value))

    def map(self, function: Callable[[T], U]) -> LawfulDescription[U]:
        """`Description.map`."""
        return LawfulDescription(self._inner_value.map(function))

    def bind(
        self, function: Callable[[T], Kind1[LawfulDescription[Any], U]]
    ) -> LawfulDescription[U]:
        """`Description.bind`."""
        return LawfulDescription(
            self._inner_value.bind(lambda value: dekind(function(value)).description)
        )

    def apply(
        self, container: Kind1[LawfulDescription[Any], Callable[[T], U]]
    ) -> LawfulDescription[U]:
        """Run this description, then the one yielding the function, and apply it."""
        functions = dekind(container).description
        return LawfulDescription(
            self._inner_value.bind(lambda value: functions.map(lambda function: function(value)))
        )

    def observe(self) -> tuple[T, tuple[TraceEvent, ...]]:
        """Run the description on a fresh deterministic interpreter: its result and its trace."""
        interpreter = DeterministicInterpreter()
        result = interpreter.run(self._inner_value)
        return result, interpreter.trace

    def __eq__(self, other: object) -> bool:
        """Whether both runs give the same result after the same steps."""
        if not isinstance(other, LawfulDescription):
            return NotImplemented
        return self.observe() == other.observe()

    def __hash__(self) -> int:
        """Not hashable: equality runs the description."""
        raise TypeError("a LawfulDescription is unhashable: its equality runs it")


def lawful_descriptions(container_type: type[object]) -> st.SearchStrategy[LawfulDescription[Any]]:
    """Descriptions that checkpoint or sleep a few times, then yield a value of the type given."""
    return st.builds(
        _after_pauses,
        st.lists(st.sampled_from(PAUSES), max_size=3),
        st.from_type(_value_type(container_type)),
    )


def _value_type(container_type: type[object]) -> Any:
    """The value's type: the first argument (after the container in a `KindN`), else any."""
    arguments: tuple[object, ...] = getattr(container_type, "__args__", ())
    if getattr(container_type, "__origin__", None) is KindN:
        arguments = arguments[1:]
    return arguments[0] if arguments else _Value


def _after_pauses(pauses: Sequence[float], value: T) -> LawfulDescription[T]:
    async def program(runtime: Runtime) -> T:
        for seconds in pauses:
            if seconds:
                await runtime.sleep(seconds)
            else:
                await runtime.checkpoint()
        return value

    return LawfulDescription(Description(program))
