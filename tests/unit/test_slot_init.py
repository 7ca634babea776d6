"""slot_init: a faster __init__ that keeps a frozen slotted dataclass exactly as it was."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field

import pytest

from toolfx.core.slot_init import slot_init


@slot_init
@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0
    label: str = "p"


@dataclass(frozen=True, slots=True)
class Plain:
    x: int
    y: int = 0
    label: str = "p"


def test_it_builds_the_same_values_as_the_generated_init() -> None:
    assert Point(1) == Point(x=1, y=0, label="p")
    assert Point(1, 2, "q") == Point(label="q", y=2, x=1)
    assert dataclasses.astuple(Point(1, 2)) == dataclasses.astuple(Plain(1, 2))
    assert repr(Point(1)) == "Point(x=1, y=0, label='p')"


def test_the_instance_stays_frozen() -> None:
    point = Point(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 2  # type: ignore[misc]
    assert point.x == 1


def test_signature_and_argument_errors_match_the_generated_init() -> None:
    assert inspect.signature(Point) == inspect.signature(Plain)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        Point(1, z=3)  # type: ignore[call-arg]


def test_fields_that_need_more_than_a_store_are_refused() -> None:
    @dataclass(frozen=True, slots=True)
    class Listed:
        items: list[int] = field(default_factory=list)

    with pytest.raises(TypeError, match="slot_init cannot build Listed"):
        slot_init(Listed)
