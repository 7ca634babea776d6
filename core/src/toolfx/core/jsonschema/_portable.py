"""The portable profile: exactly the spec's enforced JSON Schema subset, checked node by node.

A node is an object: `type` (one of seven names), `oneOf` (two or more nodes, exactly one must
match), `properties`/`required`/`additionalProperties` (with type object), `items` (with type
array), `enum`/`const` (scalars matching the type) and the annotations `description`, `title`,
`default`, `examples`. The empty node accepts any JSON. Everything else is reported, with every
offending path, by `portable_problems`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from toolfx.core.json import FrozenJson, describe_value, render_literal
from toolfx.core.jsonschema._keywords import FULL_KEYWORDS, JSON_TYPES
from toolfx.core.jsonschema._problems import Problems, SchemaProblem

__all__ = ["PORTABLE_KEYWORDS", "portable_problems", "validation_view"]

_ANNOTATIONS: Final = frozenset({"description", "title", "default", "examples"})

PORTABLE_KEYWORDS: Final = frozenset(
    {"type", "oneOf", "properties", "required", "additionalProperties", "items", "enum", "const"}
    | _ANNOTATIONS
)
"""Every keyword the portable subset accepts."""

_OBJECT_ONLY: Final = ("properties", "required", "additionalProperties")

_HINTS: Final = {
    "anyOf": "use oneOf, or profile 'full'",
    "allOf": "merge the branches into one node, or use profile 'full'",
    "nullable": 'use oneOf with a {"type": "null"} branch',
    "definitions": "inline the schemas (profile 'full' accepts $defs and $ref)",
    "$defs": "inline the schemas, or use profile 'full'",
    "$ref": "inline the referenced schema, or use profile 'full'",
}

_USE_FULL: Final = "use profile 'full'"

_Path = tuple[str | int, ...]


def portable_problems(schema: FrozenJson) -> list[SchemaProblem]:
    """Every place where a frozen schema leaves the portable subset (empty when it is inside).

    Frozen JSON holds objects as dicts and arrays as lists only (no tuple, no other mapping), so
    the walk asks for those concrete classes, not the slower abstract Mapping and Sequence.
    """
    problems = Problems()
    _node(schema, (), problems)
    return problems.items


def _scalar_matches(value: object, kind: str) -> bool:
    match kind:
        case "string":
            return isinstance(value, str)
        case "boolean":
            return isinstance(value, bool)
        case "null":
            return value is None
        case "number":
            return isinstance(value, int | float) and not isinstance(value, bool)
        case "integer":
            if isinstance(value, float):
                return value.is_integer()
            return isinstance(value, int) and not isinstance(value, bool)
        case _:
            return False


def _keyword_reason(key: str) -> str:
    hint = _HINTS.get(key)
    if key in FULL_KEYWORDS:
        return f"keyword '{key}' is not in the portable subset ({hint or _USE_FULL})"
    accepted = ", ".join(sorted(PORTABLE_KEYWORDS))
    return f"unknown keyword '{key}'" + (f": {hint}" if hint else f" (accepted: {accepted})")


def _node(node: object, at: _Path, out: Problems) -> None:
    if isinstance(node, bool):
        out.add(
            at,
            f"a boolean schema ({'true' if node else 'false'}) is not in the portable subset: "
            "use {} for any value, or profile 'full'",
        )
        return
    if not isinstance(node, dict):
        out.add(at, f"a schema node must be an object, found {describe_value(node)}")
        return
    declared = node.get("type")
    kind = declared if isinstance(declared, str) and declared in JSON_TYPES else None
    for key in node:
        here = (*at, key)
        if key not in PORTABLE_KEYWORDS:
            out.add(here, _keyword_reason(key))
        elif key in _OBJECT_ONLY and kind != "object":
            out.add(here, _needs_type(key, "object", declared))
            if key == "properties":  # still report what is wrong inside
                _keyword(node, key, here, kind, out)
        elif key == "items" and kind != "array":
            out.add(here, _needs_type(key, "array", declared))
            _keyword(node, key, here, kind, out)
        else:
            _keyword(node, key, here, kind, out)


def _needs_type(key: str, needed: str, declared: object) -> str:
    has = f"this node has type {render_literal(declared)}" if declared is not None else "no type"
    return f'keyword \'{key}\' needs "type": "{needed}" in the same node ({has})'


def _keyword(
    node: Mapping[str, object], key: str, at: _Path, kind: str | None, out: Problems
) -> None:
    value = node[key]
    match key:
        case "type":
            _type(value, at, out)
        case "oneOf":
            _one_of(value, at, out)
        case "properties":
            if isinstance(value, dict):
                for name, sub in value.items():
                    _node(sub, (*at, name), out)
            else:
                out.add(
                    at, f"properties must be an object of schemas, found {describe_value(value)}"
                )
        case "required":
            _required(value, node.get("properties"), at, out)
        case "additionalProperties":
            if not isinstance(value, bool):
                out.add(
                    at,
                    "additionalProperties must be true or false in the portable subset "
                    f"(found {describe_value(value)}; a schema needs profile 'full')",
                )
        case "items":
            if isinstance(value, list):
                out.add(at, "items must be one schema (a list of schemas is not supported)")
            else:
                _node(value, at, out)
        case "enum":
            _enum(value, at, kind, out)
        case "const":
            _scalar(value, at, kind, "const", out)
        case "description" | "title":
            if not isinstance(value, str):
                out.add(at, f"{key} must be a string, found {describe_value(value)}")
        case _:  # default, examples: any lossless JSON, already checked by the snapshot
            pass


_TYPE_NAMES: Final = ", ".join(JSON_TYPES)


def _type(value: object, at: _Path, out: Problems) -> None:
    if isinstance(value, list):
        out.add(
            at, f"type must be a single name; for several types use oneOf (one of: {_TYPE_NAMES})"
        )
    elif value not in JSON_TYPES or not isinstance(value, str):
        out.add(at, f"type must be one of {_TYPE_NAMES}; found {describe_value(value)}")


def _one_of(value: object, at: _Path, out: Problems) -> None:
    if not isinstance(value, list):
        out.add(at, f"oneOf must be a list of at least 2 schemas, found {describe_value(value)}")
        return
    if len(value) < 2:
        out.add(at, f"oneOf needs at least 2 branches, found {len(value)}")
    for index, branch in enumerate(value):
        _node(branch, (*at, index), out)


def _required(value: object, properties: object, at: _Path, out: Problems) -> None:
    if not isinstance(value, list):
        out.add(at, f"required must be a list of property names, found {describe_value(value)}")
        return
    declared = properties if isinstance(properties, dict) else {}
    seen: set[str] = set()
    for index, name in enumerate(value):
        here = (*at, index)
        if not isinstance(name, str):
            out.add(here, f"a required name must be a string, found {describe_value(name)}")
            continue
        if name in seen:
            out.add(here, f"'{name}' is listed twice in required")
        elif name not in declared:
            out.add(here, f"required property '{name}' is not declared in properties")
        seen.add(name)


def _enum(value: object, at: _Path, kind: str | None, out: Problems) -> None:
    if not isinstance(value, list) or not value:
        out.add(at, f"enum must be a non-empty list of scalars, found {describe_value(value)}")
        return
    for index, item in enumerate(value):
        _scalar(item, (*at, index), kind, "an enum value", out)


def _scalar(value: object, at: _Path, kind: str | None, what: str, out: Problems) -> None:
    if isinstance(value, dict | list):
        out.add(
            at, f"{what} must be a string, number, boolean or null, found {describe_value(value)}"
        )
    elif kind is not None and not _scalar_matches(value, kind):
        out.add(at, f"{what} {render_literal(value)} does not match the node's type '{kind}'")


def validation_view(schema: FrozenJson) -> FrozenJson:
    """A portable schema without its annotations: what the validator compiles and caches.

    The spec lets `examples` hold any JSON, which Draft 2020-12 validators refuse to compile; the
    annotations do not change validation, so they are dropped before compiling.
    """
    if not isinstance(schema, dict):
        return schema
    view: dict[str, FrozenJson] = {}
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        if key == "properties" and isinstance(value, dict):
            view[key] = {name: validation_view(sub) for name, sub in value.items()}
        elif key == "items":
            view[key] = validation_view(value)
        elif key == "oneOf" and isinstance(value, list):
            view[key] = [validation_view(branch) for branch in value]
        else:
            view[key] = value
    return view
