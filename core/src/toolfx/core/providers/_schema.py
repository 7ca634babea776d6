"""What the provider exports need to know about a schema node: the JSON kinds it accepts,
whether it takes null, whether union branches exclude each other, and where a local $ref points.

Every answer is read from the schema's keywords alone and errs towards "may overlap" and "may
be null", so a rewrite that relies on it (oneOf into anyOf, a property made nullable) never
accepts a value the original schema rejects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final
from urllib.parse import unquote

from toolfx.core.json import FrozenDict, json_pointer
from toolfx.core.jsonschema import SchemaProblem

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson

__all__ = [
    "ALL_KINDS",
    "SCALAR_KINDS",
    "accepts_null",
    "exclusive",
    "json_kind",
    "kinds",
    "local_segments",
    "lone_scalar_type",
    "problem_at",
    "required_names",
    "resolve_local",
]

ALL_KINDS: Final = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
"""The JSON kinds a schema may accept (an integral number is also a "number")."""

SCALAR_KINDS: Final = frozenset({str, int, float, bool, type(None)})
"""The Python types of JSON scalars: a value of one is its own plain copy (no thawing)."""

_SCALAR_TYPES: Final = frozenset({"string", "number", "integer", "boolean"})


def lone_scalar_type(schema: object) -> str | None:
    """The type name of a frozen schema that is only `{"type": <string, number, integer or
    boolean>}` (most properties of a derived schema), else None: such a schema loses nothing in
    any wire format, so a rewrite may give its form without walking it."""
    if type(schema) is not FrozenDict or len(schema) != 1:
        return None
    declared = schema.get("type")
    return declared if type(declared) is str and declared in _SCALAR_TYPES else None


_NO_TARGET: Final = object()


_MADE_MOST: Final = 4096
"""How many problems `problem_at` keeps for reuse (then it starts again from none)."""

_MADE_LONGEST: Final = 256
"""The longest pointer and reason, together, of a problem kept for reuse: a hostile schema's
long names or values (a reason may quote a value) are not kept past the schema."""

_made: Final[dict[tuple[tuple[str | int, ...], str], SchemaProblem]] = {}


def problem_at(at: tuple[str | int, ...], reason: str) -> SchemaProblem:
    """The problem `reason` at the path `at`: the same object for a place and reason met again
    (the same few recur in tool after tool: an `additionalProperties` at the root, say)."""
    key = (at, reason)
    made = _made.get(key)
    if made is None:
        made = SchemaProblem(json_pointer(at), reason)
        if len(made.path) + len(reason) <= _MADE_LONGEST:
            if len(_made) >= _MADE_MOST:
                _made.clear()
            _made[key] = made
    return made


def json_kind(value: object) -> str:
    """The JSON kind of a value as `type` names it (bool before int: it is one in Python)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    return "object" if isinstance(value, Mapping) else "array"


def local_segments(reference: str) -> tuple[str, ...]:
    """The path segments of a same-document `$ref` ("#/$defs/node" gives "$defs", "node")."""
    return tuple(
        unquote(raw).replace("~1", "/").replace("~0", "~") for raw in reference[1:].split("/")[1:]
    )


def resolve_local(root: FrozenJson, reference: str) -> object | None:
    """The subschema a same-document `$ref` ("#" or "#/...") points at, or None."""
    if not reference.startswith("#") or (len(reference) > 1 and reference[1] != "/"):
        return None
    node: object = root
    for segment in local_segments(reference):
        if isinstance(node, Mapping):
            node = node.get(segment, _NO_TARGET)
        elif isinstance(node, Sequence) and not isinstance(node, str) and segment.isdigit():
            node = node[int(segment)] if int(segment) < len(node) else _NO_TARGET
        else:
            return None
        if node is _NO_TARGET:
            return None
    return node


def kinds(node: object, root: FrozenJson, seen: frozenset[str] = frozenset()) -> frozenset[str]:
    """The JSON kinds a schema may accept (a superset: keywords it cannot read allow anything)."""
    if isinstance(node, bool):
        return ALL_KINDS if node else frozenset()
    if not isinstance(node, Mapping):
        return ALL_KINDS
    out = ALL_KINDS
    declared = node.get("type")
    if declared is not None:
        names = {declared} if isinstance(declared, str) else set(declared)
        if "number" in names:
            names.add("integer")
        out &= names
    if "const" in node:
        out &= {json_kind(node["const"])} | ({"number"} if _is_whole(node["const"]) else set())
    if isinstance(node.get("enum"), Sequence):
        values = node["enum"]
        out &= {json_kind(v) for v in values} | {"number" for v in values if _is_whole(v)}
    reference = node.get("$ref")
    if isinstance(reference, str) and reference not in seen:
        out &= kinds(resolve_local(root, reference), root, seen | {reference})
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if isinstance(branches, Sequence):
            out &= frozenset().union(*(kinds(b, root, seen) for b in branches))
    return out


def _is_whole(value: object) -> bool:
    return json_kind(value) == "integer"


def accepts_null(node: object, root: FrozenJson) -> bool:
    """Whether a schema may accept null (True when in doubt)."""
    return "null" in kinds(node, root)


def exclusive(branches: Sequence[object], root: FrozenJson) -> bool:
    """Whether no JSON value can match two of the branches (False when in doubt).

    Two branches exclude each other when they share no JSON kind, or when both are objects
    only and a property both require is pinned (const or enum) to different values: a tag.
    """
    return all(
        _disjoint(first, second, root)
        for index, first in enumerate(branches)
        for second in branches[index + 1 :]
    )


def _disjoint(first: object, second: object, root: FrozenJson) -> bool:
    shared = kinds(first, root) & kinds(second, root)
    if not shared:
        return True
    first, second = _target(first, root), _target(second, root)
    if shared != {"object"} or not (isinstance(first, Mapping) and isinstance(second, Mapping)):
        return False
    return any(
        not (pinned & _pinned(second, key, root))
        for key in required_names(first) & required_names(second)
        if (pinned := _pinned(first, key, root))
    )


def _target(node: object, root: FrozenJson) -> object:
    """The schema a node stands for: itself, or what its lone `$ref` chain points at."""
    seen: set[str] = set()
    while isinstance(node, Mapping) and isinstance(ref := node.get("$ref"), str) and len(node) == 1:
        if ref in seen:
            return node
        seen.add(ref)
        node = resolve_local(root, ref)
    return node


def required_names(node: Mapping[str, object]) -> frozenset[str]:
    """The property names an object schema's `required` lists (none when it is malformed)."""
    names = node.get("required")
    if not isinstance(names, Sequence) or isinstance(names, str):
        return frozenset()
    return frozenset(name for name in names if isinstance(name, str))


def _pinned(node: Mapping[str, object], key: str, root: FrozenJson) -> frozenset[object]:
    """The typed values a property is pinned to by const or enum (empty: not pinned)."""
    properties = node.get("properties")
    prop = properties.get(key) if isinstance(properties, Mapping) else None
    prop = _target(prop, root)
    if not isinstance(prop, Mapping):
        return frozenset()
    if "const" in prop:
        return frozenset({(json_kind(prop["const"]), prop["const"])})
    values = prop.get("enum")
    if isinstance(values, Sequence) and not isinstance(values, str):
        return frozenset((json_kind(v), v) for v in values)
    return frozenset()
