"""Benchmarks of typed schemas: validating and decoding a tool call's arguments."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict

from tests.bench.harness import REFERENCE_ARGUMENTS, REFERENCE_TEXT, Case, time_call
from toolfx.core.json import parse_json
from toolfx.core.schema import schema_of


class ReadArgs(TypedDict):
    """The reference arguments as a TypedDict (decoded without a copy)."""

    path: str
    offset: int
    limit: int
    follow: NotRequired[bool]
    mode: Literal["text", "binary"]


@dataclass(frozen=True)
class ReadRequest:
    """The reference arguments as a frozen dataclass (decoded into an instance)."""

    path: str
    offset: int
    limit: int
    mode: Literal["text", "binary"]
    follow: bool = False


def run() -> list[Case]:
    """Time validate+decode of the 5-property arguments, frozen and plain, and the whole path."""
    as_typed_dict = schema_of(ReadArgs)
    as_dataclass = schema_of(ReadRequest)
    frozen = parse_json(REFERENCE_TEXT).unwrap()
    assert as_typed_dict.validate(frozen).unwrap() is frozen
    return [
        ("validate+decode TypedDict (frozen)", time_call(lambda: as_typed_dict.validate(frozen))),
        ("validate+decode dataclass (frozen)", time_call(lambda: as_dataclass.validate(frozen))),
        (
            "validate+decode TypedDict (plain dict)",
            time_call(lambda: as_typed_dict.validate(REFERENCE_ARGUMENTS)),
        ),
        (
            "parse_json + validate+decode TypedDict",
            time_call(lambda: as_typed_dict.validate(parse_json(REFERENCE_TEXT).unwrap())),
        ),
    ]
