"""Decoders: turn valid frozen JSON into the declared Python type, and typed values back."""

from __future__ import annotations

import dataclasses
import enum
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, final

from toolfx.core.json import FrozenDict, FrozenList, frozen_dict_of, frozen_list_of, json_pointer
from toolfx.core.jsonschema import ValidationIssue
from toolfx.core.schema._pydantic import is_model, model_plain

__all__ = [
    "KINDS_ANY",
    "DecodeProblem",
    "Decoder",
    "Node",
    "array_decoder",
    "dataclass_decoder",
    "decode_float",
    "decode_int",
    "decode_int_literal",
    "json_kind",
    "tag_of",
    "to_plain",
    "typed_dict_decoder",
    "union_decoder",
]


Decoder = Callable[[Any], Any]
"""Turns a valid frozen JSON value into the declared type; None stands for the identity."""


KINDS_ANY: Final = frozenset({"string", "integer", "number", "boolean", "null", "array", "object"})


class DecodeProblem(Exception):
    """Internal: a valid JSON value that still cannot become the declared type."""

    def __init__(self, expected: str, found: str) -> None:
        super().__init__(expected)
        self.expected = expected
        self.found = found
        self.segments: list[str | int] = []

    def issue(self) -> ValidationIssue:
        """The problem as a validation issue with its JSON pointer."""
        return ValidationIssue(json_pointer(self.segments[::-1]), self.expected, self.found)


@final
@dataclass(frozen=True, slots=True)
class Node:
    """One derived schema node: its JSON Schema, decoder, accepted JSON kinds and object tags."""

    schema: dict[str, Any]
    decode: Decoder | None = None
    kinds: frozenset[str] = KINDS_ANY
    tags: Mapping[str, frozenset[object]] = field(default_factory=dict)


def json_kind(value: object) -> str:
    kind = type(value)
    if kind is str:
        return "string"
    if kind is bool:
        return "boolean"
    if kind is int:
        return "integer"
    if kind is float:
        return "integer" if value.is_integer() else "number"  # type: ignore[attr-defined]
    if kind is FrozenList:
        return "array"
    if kind is FrozenDict:
        return "object"
    return "null"


def tag_of(value: object) -> tuple[type, object]:
    if type(value) is float and value.is_integer():
        return (int, int(value))
    return (type(value), value)


def decode_int(value: Any) -> int:
    return value if type(value) is int else int(value)


def decode_float(value: Any) -> float:
    if type(value) is float:
        return value
    try:
        return float(value)
    except OverflowError:
        raise DecodeProblem(
            "a number within double-precision range", f"an integer of {len(str(value))} digits"
        ) from None


def decode_int_literal(value: Any) -> Any:
    return int(value) if type(value) is float else value


def array_decoder(item: Decoder | None, *, to_tuple: bool) -> Decoder | None:
    if item is None:
        return tuple if to_tuple else None

    def decode(value: Any) -> Any:
        out = []
        for index, element in enumerate(value):
            try:
                out.append(item(element))
            except DecodeProblem as problem:
                problem.segments.append(index)
                raise
        return tuple(out) if to_tuple else frozen_list_of(out)

    return decode


def typed_dict_decoder(decoders: list[tuple[str, Decoder]]) -> Decoder | None:
    """The decoder of a TypedDict's fields (None: every field is its JSON as it is); one per
    distinct list of field decoders, shared by every TypedDict that has it."""
    if not decoders:
        return None
    key = tuple(decoders)
    shared = _TYPED_DICT_DECODERS.get(key)
    if shared is None:
        shared = _TYPED_DICT_DECODERS[key] = _fields_decoder(key)
    return shared


_FieldDecoders = tuple[tuple[str, Decoder], ...]
_TYPED_DICT_DECODERS: Final[weakref.WeakValueDictionary[_FieldDecoders, Decoder]] = (
    weakref.WeakValueDictionary()
)
"""The decoders something still holds, by their field decoders: an entry goes with its last
holder (a schema)."""


def _fields_decoder(decoders: _FieldDecoders) -> Decoder:
    int_keys = tuple(key for key, item in decoders if item is decode_int)
    others = tuple((key, item) for key, item in decoders if item is not decode_int)

    def decode_ints(value: Any) -> Any:  # only int fields: the JSON itself unless one is 2.0
        for key in int_keys:
            if type(value.get(key)) is float:
                return decode(value)
        return value

    def decode(value: Any) -> Any:
        changed: dict[str, Any] | None = None
        for key in int_keys:  # inline: only an integral float (2.0) changes
            if type(value.get(key)) is float:
                changed = dict(value) if changed is None else changed
                changed[key] = int(value[key])
        for key, item in others:
            if key in value:
                old = value[key]
                try:
                    new = item(old)
                except DecodeProblem as problem:
                    problem.segments.append(key)
                    raise
                if new is not old:
                    changed = dict(value) if changed is None else changed
                    changed[key] = new
        return value if changed is None else frozen_dict_of(changed)

    return decode if others else decode_ints


def dataclass_decoder(
    tp: type, fields: list[tuple[str, Decoder | None]], defaults: dict[str, Callable[[], Any]]
) -> Decoder:
    def decode(value: Any) -> Any:
        kwargs: dict[str, Any] = {}
        for key, item in fields:
            if key in value:
                try:
                    kwargs[key] = value[key] if item is None else item(value[key])
                except DecodeProblem as problem:
                    problem.segments.append(key)
                    raise
            elif key in defaults:
                kwargs[key] = defaults[key]()
        return tp(**kwargs)

    return decode


def union_decoder(nodes: list[Node], tag: tuple[str, dict[object, Node]] | None) -> Decoder | None:
    """Decode a oneOf by the value's JSON kind, and objects by their tag field."""
    by_kind: dict[str, Node] = {}
    for node in nodes:
        for kind in node.kinds:
            by_kind.setdefault(kind, node)
    if all(n.decode is None for n in nodes) and tag is None:
        return None

    def decode(value: Any) -> Any:
        kind = json_kind(value)
        node = by_kind[kind]
        if kind == "object" and tag is not None:
            key, by_tag = tag
            node = by_tag[tag_of(value[key])]
        return value if node.decode is None else node.decode(value)

    return decode


def to_plain(value: object) -> object:
    """Turn a typed value (dataclasses, enums, tuples) into plain JSON-shaped data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {  # init=False fields are not part of the schema: the decoder cannot pass them
            f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init
        }
    if isinstance(value, enum.Enum):
        return to_plain(value.value)
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    if is_model(value):
        return model_plain(value)
    return value
