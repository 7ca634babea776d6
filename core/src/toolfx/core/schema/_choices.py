"""Schema nodes for closed choices (Literal, Enum), open objects, and the rules of unions."""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from typing import Any, Final, NoReturn, get_args

from toolfx.core.json import JsonValue
from toolfx.core.schema._decode import (
    Node,
    decode_int_literal,
)
from toolfx.core.schema._types import SchemaDerivationError, fail, type_name

__all__ = [
    "check_disjoint",
    "enum_node",
    "is_json_scalar",
    "is_literal",
    "literal_node",
    "literal_values",
    "open_object_node",
    "union_tag",
    "unsupported",
]


def is_json_scalar(value: object) -> bool:
    """Whether a value is a finite JSON scalar (str, int, float, bool, None)."""
    return (
        value is None
        or type(value) in (str, int, bool)
        or (type(value) is float and math.isfinite(value))
    )


_SCALAR_KINDS: Final[dict[type, str]] = {str: "string", bool: "boolean", int: "integer"}
_SCHEMA_TYPES: Final[dict[str, str]] = {
    "string": "string",
    "boolean": "boolean",
    "integer": "integer",
    "null": "null",
}


def literal_node(values: tuple[object, ...], where: str) -> Node:
    """The node for a Literal: const or enum, typed when every value has one JSON type."""
    kinds: set[str] = set()
    for value in values:
        if value is None:
            kinds.add("null")
        elif type(value) in _SCALAR_KINDS:
            kinds.add(_SCALAR_KINDS[type(value)])
        else:
            fail(where, f"Literal value {value!r} is not a JSON scalar (str, int, bool, None)")
    schema: dict[str, Any] = {}
    if len(kinds) == 1:
        schema["type"] = _SCHEMA_TYPES[next(iter(kinds))]
    unique = list(dict.fromkeys((type(v), v) for v in values))
    if len(unique) == 1:
        schema["const"] = unique[0][1]
    else:
        schema["enum"] = [v for _, v in unique]
    decode = decode_int_literal if "integer" in kinds else None
    return Node(schema, decode, frozenset(kinds))


def is_literal(schema: Mapping[str, Any]) -> bool:
    """Whether a schema node pins its values (enum or const)."""
    return "enum" in schema or "const" in schema


def literal_values(schema: Mapping[str, Any]) -> frozenset[object]:
    """A literal node's values, typed, for telling union branches apart."""
    if "const" in schema:
        return frozenset({(type(schema["const"]), schema["const"])})
    return frozenset((type(v), v) for v in schema["enum"])


def enum_node(tp: type[enum.Enum], where: str) -> Node:
    """The node for an Enum of all-str or all-int values, decoding to members."""
    members = list(tp)
    values = [m.value for m in members]
    if not values:
        fail(where, f"enum {tp.__name__} has no members")
    kinds = {_SCALAR_KINDS.get(type(v)) for v in values}
    if None in kinds or len(kinds) != 1:
        fail(where, f"enum {tp.__name__} must have all-str or all-int values")
    kind = next(iter(kinds))
    assert kind is not None
    by_value = dict(zip(values, members, strict=True))

    def decode(value: Any) -> Any:
        return by_value[int(value) if kind == "integer" else value]

    return Node({"type": kind, "enum": values}, decode, frozenset({kind}))


def open_object_node(tp: object, where: str) -> Node:
    """The node for dict[str, JsonValue]: any JSON object."""
    args = get_args(tp)
    if len(args) != 2 or args[0] is not str or args[1] is not JsonValue:
        fail(
            where,
            f"{tp!r}: only dict[str, JsonValue] maps are supported (the portable "
            "subset has no schema for additional properties); declare a TypedDict instead",
        )
    return Node({"type": "object"}, kinds=frozenset({"object"}))


def unsupported(tp: object, where: str) -> NoReturn:
    """Refuse a type that has no JSON Schema, saying what would work."""
    if tp is Any or tp is object:
        fail(where, f"{tp!r} says nothing about the JSON; use JsonValue for any JSON value")
    fail(
        where,
        f"{type_name(tp)} is not a supported type (str, int, float, bool, None, Literal, "
        "Enum, list/tuple/Sequence, TypedDict, frozen dataclass, union, Annotated, JsonValue)",
    )


def check_disjoint(members: list[object], nodes: list[Node], where: str) -> None:
    """Refuse a union two of whose branches can match one JSON value (oneOf needs one)."""
    for i, first in enumerate(nodes):
        for j in range(i + 1, len(nodes)):
            second = nodes[j]
            shared = first.kinds & second.kinds
            if not shared:
                continue
            if shared == {"object"} and _tag_key(first, second) is not None:
                continue
            example = sorted(shared)[0]
            hint = (
                "give both a required Literal field with different values (a tag)"
                if shared == {"object"}
                else "merge them into one type"
            )
            fail(
                where,
                f"{type_name(members[i])} | {type_name(members[j])} is ambiguous: a JSON "
                f"{example} can match both, but oneOf requires exactly one branch to match; "
                f"{hint}",
            )


def _tag_key(first: Node, second: Node) -> str | None:
    for key, values in first.tags.items():
        other = second.tags.get(key)
        if other is not None and not values & other:
            return key
    return None


def union_tag(nodes: list[Node], where: str) -> tuple[str, dict[object, Node]] | None:
    """The tag field and its values per branch, when a union has several object branches."""
    objects = [n for n in nodes if "object" in n.kinds]
    return _shared_tag(objects, where) if len(objects) > 1 else None


def _shared_tag(objects: list[Node], where: str) -> tuple[str, dict[object, Node]]:
    for key in objects[0].tags:
        if all(key in n.tags for n in objects):
            by_tag: dict[object, Node] = {}
            for node in objects:
                for tagged in node.tags[key]:
                    if tagged in by_tag:
                        break
                    by_tag[tagged] = node
                else:
                    continue
                break
            else:
                return key, by_tag
    raise SchemaDerivationError(
        where,
        "the object branches of this union share no required Literal field whose "
        "values tell them apart; add one (a tag) to every branch",
    )
