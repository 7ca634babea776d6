"""The full profile: every Draft 2020-12 keyword that jsonschema-rs really enforces, and no other.

`FULL_KEYWORDS` (kept in `_keywords`) is the table of accepted keywords. `full_problems` walks
every subschema position (so an unknown keyword deep inside is reported with its path), checks
each keyword's value, and checks that every `$ref`/`$dynamicRef` resolves inside the schema
itself: there is no network.
Formats are limited to `FORMATS`, the names jsonschema-rs checks when format checking is on.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Final, TypeGuard, final

import jsonschema_rs

from toolfx.core.json import FrozenJson, describe_value
from toolfx.core.jsonschema._keywords import (
    _ANY,
    _BOOLEAN,
    _COUNT,
    _LIST,
    _NUMBER,
    _SCHEMA,
    _SCHEMA_LIST,
    _SCHEMA_MAP,
    _STRING,
    FULL_KEYWORDS,
    JSON_TYPES,
)
from toolfx.core.jsonschema._problems import Problems, SchemaProblem
from toolfx.core.jsonschema._refs import References

__all__ = [
    "DIALECTS",
    "FORMATS",
    "FULL_KEYWORDS",
    "JSON_TYPES",
    "full_problems",
    "regex_problem",
]

FORMATS: Final = frozenset(
    {
        "date-time", "date", "time", "duration", "email", "idn-email", "hostname",
        "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference",
        "uuid", "uri-template", "json-pointer", "relative-json-pointer", "regex",
    }
)  # fmt: skip
"""Format names jsonschema-rs checks with validate_formats=True (each verified by a test)."""

DIALECTS: Final = frozenset(
    {
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2020-12/schema#",
    }
)
"""The accepted values of `$schema`."""

_NOT_ENFORCED = (
    "is only an annotation: the validator does not check it, so it would not be enforced"
)
_REJECTED: Final = {
    "definitions": "is the draft-7 name: use $defs",
    "dependencies": "is the draft-7 keyword: use dependentRequired or dependentSchemas",
    "additionalItems": "is not a Draft 2020-12 keyword: use prefixItems with items",
    "$recursiveRef": "is the draft 2019-09 keyword: use $dynamicRef",
    "$recursiveAnchor": "is the draft 2019-09 keyword: use $dynamicAnchor",
    "$vocabulary": "only applies in a meta-schema, and custom meta-schemas are not supported",
    "contentMediaType": _NOT_ENFORCED,
    "contentEncoding": _NOT_ENFORCED,
    "contentSchema": _NOT_ENFORCED,
    "nullable": 'is an OpenAPI keyword: use "type": [..., "null"]',
}

_ANCHOR: Final = re.compile(r"[A-Za-z_][-A-Za-z0-9._]*")

_Path = tuple[str | int, ...]


def full_problems(schema: FrozenJson) -> list[SchemaProblem]:
    """Every place where a frozen schema uses something the full profile does not enforce."""
    walk = _Walk(schema)
    walk.schema(schema, (), "")
    walk.refs.check(walk.out)
    return walk.out.items


@functools.lru_cache(maxsize=256)
def regex_problem(pattern: str) -> str | None:
    """Why jsonschema-rs cannot compile `pattern` as a regular expression (None when it can)."""
    try:
        jsonschema_rs.Draft202012Validator({"pattern": pattern})
    except (ValueError, jsonschema_rs.ReferencingError) as exc:
        first = str(exc).split("\n", 1)[0]
        return f"{describe_value(pattern)} is not a valid regular expression ({first})"
    return None


def _is_list(value: object) -> TypeGuard[Sequence[object]]:
    return isinstance(value, Sequence) and not isinstance(value, str)


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _unknown(key: str) -> str:
    reason = _REJECTED.get(key)
    if reason is not None:
        return f"keyword '{key}' {reason}"
    return f"unknown keyword '{key}': it would be ignored, so it is not accepted"


@final
class _Walk:
    """One walk over a schema: the problems found and the references met."""

    __slots__ = ("out", "refs")

    def __init__(self, root: FrozenJson) -> None:
        self.out = Problems()
        self.refs = References(root)

    def schema(self, node: object, at: _Path, base: str) -> None:
        """Check one subschema and everything below it."""
        if isinstance(node, bool):
            return
        if not isinstance(node, Mapping):
            self.out.add(
                at, f"a schema must be an object or a boolean, found {describe_value(node)}"
            )
            return
        base = self.refs.enter(node, base)
        for key, value in node.items():
            self.keyword(key, value, (*at, key), base)

    def keyword(self, key: str, value: object, at: _Path, base: str) -> None:
        """Check one keyword of a schema object."""
        if key not in FULL_KEYWORDS:
            self.out.add(at, _unknown(key))
        elif key == "items" and isinstance(value, Sequence) and not isinstance(value, str):
            self.out.add(at, "items must be one schema; for a list of schemas use prefixItems")
        elif key in _SCHEMA:
            self.schema(value, at, base)
        elif key in _SCHEMA_MAP:
            self.schema_map(key, value, at, base)
        elif key in _SCHEMA_LIST:
            if not isinstance(value, Sequence) or isinstance(value, str) or not value:
                found = describe_value(value)
                self.out.add(at, f"{key} must be a non-empty list of schemas, found {found}")
                return
            for index, sub in enumerate(value):
                self.schema(sub, (*at, index), base)
        else:
            reason = _value_problem(key, value)
            if reason is not None:
                self.out.add(at, reason)
            elif key in ("$ref", "$dynamicRef"):
                self.refs.refer(at, base, str(value))

    def schema_map(self, key: str, value: object, at: _Path, base: str) -> None:
        """Check an object of subschemas (properties, $defs, ...)."""
        if not isinstance(value, Mapping):
            self.out.add(at, f"{key} must be an object of schemas, found {describe_value(value)}")
            return
        for name, sub in value.items():
            if key == "patternProperties":
                reason = regex_problem(name)
                if reason is not None:
                    self.out.add((*at, name), reason)
            self.schema(sub, (*at, name), base)


def _is_count(value: object) -> bool:
    return _is_number(value) and float(value).is_integer() and value >= 0


def _is_string(value: object) -> bool:
    return isinstance(value, str)


def _is_boolean(value: object) -> bool:
    return isinstance(value, bool)


def _is_anything(value: object) -> bool:
    return True


_SHAPES: Final[tuple[tuple[frozenset[str], Callable[[object], bool], str], ...]] = (
    (_NUMBER, _is_number, "a number"),
    (_COUNT, _is_count, "an integer >= 0"),
    (_STRING, _is_string, "a string"),
    (_BOOLEAN, _is_boolean, "true or false"),
    (_LIST, _is_list, "a list"),
    (_ANY, _is_anything, "any JSON"),
)


def _value_problem(key: str, value: object) -> str | None:
    """Why the value of a non-schema keyword is malformed (None when it is fine)."""
    for keywords, fits, wanted in _SHAPES:
        if key in keywords:
            return None if fits(value) else f"{key} must be {wanted}, found {describe_value(value)}"
    return _special_problem(key, value)


def _special_problem(key: str, value: object) -> str | None:
    found = describe_value(value)
    match key:
        case "type":
            return _type_problem(value)
        case "multipleOf":
            ok = _is_number(value) and value > 0
            return None if ok else f"multipleOf must be a number > 0, found {found}"
        case "pattern":
            if not isinstance(value, str):
                return f"pattern must be a string, found {found}"
            return regex_problem(value)
        case "required":
            return _names_problem(key, value)
        case "dependentRequired":
            if not isinstance(value, Mapping):
                return f"dependentRequired must be an object of name lists, found {found}"
            reasons = [_names_problem(f"dependentRequired/{k}", v) for k, v in value.items()]
            return next((reason for reason in reasons if reason is not None), None)
        case "$ref" | "$dynamicRef" | "$id":
            if not isinstance(value, str):
                return f"{key} must be a string (a URI reference), found {found}"
            if key == "$id" and "#" in value.rstrip("#"):
                return f"$id must not have a fragment (use $anchor), found {found}"
            return None
        case "$anchor" | "$dynamicAnchor":
            if isinstance(value, str) and _ANCHOR.fullmatch(value) is not None:
                return None
            return f"{key} must be a name like 'node' ([A-Za-z_][-A-Za-z0-9._]*), found {found}"
        case "$schema":
            if value in DIALECTS:
                return None
            dialect = min(DIALECTS)
            return f"only the Draft 2020-12 dialect is supported ('{dialect}'), found {found}"
        case _:  # format
            if isinstance(value, str) and value in FORMATS:
                return None
            names = ", ".join(sorted(FORMATS))
            return (
                f"format {found} is not checked by the validator, so it would not be enforced "
                f"(checked formats: {names})"
            )


def _type_problem(value: object) -> str | None:
    if isinstance(value, str) and value in JSON_TYPES:
        return None
    if _is_list(value):
        names = [n for n in value if isinstance(n, str) and n in JSON_TYPES]
        if names and len(names) == len(value) == len(set(names)):
            return None
    known = ", ".join(JSON_TYPES)
    found = describe_value(value)
    return f"type must be one of {known}, or a non-empty list of distinct names; found {found}"


def _names_problem(key: str, value: object) -> str | None:
    if not _is_list(value) or not all(isinstance(v, str) for v in value):
        return f"{key} must be a list of property names (strings), found {describe_value(value)}"
    names = list(value)
    if len(set(names)) != len(names):
        return f"{key} lists a property name more than once"
    return None
