"""Descriptions: what pyright infers when they are composed and passed around."""

from typing import assert_type

from toolfx.core import Description


# a description of a subtype is one of its supertype (rejected before: Description was invariant)
def widen(narrow: Description[bool]) -> Description[int]:
    return narrow


def wrong(numbers: Description[int]) -> Description[str]:
    return numbers  # pyright: ignore[reportReturnType]


numbers: Description[int] = Description.of(True)
assert_type(numbers.map(str), Description[str])
assert_type(numbers.bind(lambda n: Description.of(n > 1)), Description[bool])
