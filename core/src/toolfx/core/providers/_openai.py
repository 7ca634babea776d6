"""OpenAI strict mode (Structured Outputs): rewrite a parameter schema into the strict subset.

`strict_parameters` gives the strict schema, or every reason it cannot be made strict. The
rewrite narrows nothing a model would send for the original schema except what strict mode
itself requires, and accepts nothing the original rejects, except null where an optional
property used to be absent:

- every object lists all its properties in `required` and gets `additionalProperties: false`;
  an optional property becomes nullable (`"type": [T, "null"]`, a null added to its `enum`, a
  null branch added to its `anyOf`, or an `anyOf` with a null branch around it);
- `oneOf` becomes `anyOf` when its branches provably exclude each other (different JSON kinds,
  or objects told apart by a tag): toolfx's derived unions always do;
- a `$ref` with a description or title beside it is inlined, as the openai SDK does;
- annotations strict mode refuses (`default`, `examples`, `$comment`, `$schema`, `deprecated`,
  `readOnly`, `writeOnly`) are left out: they constrain nothing;
- an object with properties but no `additionalProperties` is closed, as the openai SDK does.

Anything else outside the documented subset makes the tool non-strict, with the keyword's path:
an open object or map, a value of any JSON (`{}`, `true`), an array without `items`, `allOf`,
`not`, `if`/`then`/`else`, string lengths, `uniqueItems`, unlisted formats, a root that is not a
plain object, and schemas past `OpenAILimits`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, final

from toolfx.core.json import describe_value, thaw_json
from toolfx.core.jsonschema import SchemaProblem
from toolfx.core.providers._schema import (
    SCALAR_KINDS,
    accepts_null,
    exclusive,
    lone_scalar_type,
    problem_at,
    resolve_local,
)

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson, JsonValue

__all__ = ["OPENAI_FORMATS", "OPENAI_LIMITS", "OpenAILimits", "strict_parameters"]


@final
@dataclass(frozen=True, slots=True)
class OpenAILimits:
    """Strict-mode size limits (OpenAI's documented ones; Azure's older ones were 100 and 5)."""

    properties: int = 5000
    """Object properties in the whole schema."""
    nesting: int = 10
    """Levels of nested objects."""
    enum_values: int = 1000
    """Enum values in the whole schema."""


OPENAI_LIMITS: Final = OpenAILimits()
"""The limits OpenAI documents for strict mode."""

OPENAI_FORMATS: Final = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
"""The string formats strict mode supports."""

_KEPT: Final = frozenset(
    {
        "type", "enum", "const", "description", "title", "pattern", "minimum", "maximum",
        "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip
_LEFT_OUT: Final = frozenset(
    {"default", "examples", "$comment", "$schema", "deprecated", "readOnly", "writeOnly"}
)
_SKIPPED: Final = _LEFT_OUT | {"required"}  # required: rebuilt by `close`
_LABELS: Final = frozenset({"description", "title"})
_TYPED: Final = frozenset({"type", "enum", "const", "anyOf", "oneOf", "$ref"})

_Path = tuple[str | int, ...]


def strict_parameters(
    schema: FrozenJson, limits: OpenAILimits
) -> tuple[dict[str, JsonValue] | None, list[SchemaProblem]]:
    """The strict form of a parameter schema, or None and why it cannot be strict."""
    if not (isinstance(schema, dict) and schema.get("type") == "object"):
        reason = 'the root must be an object schema ("type": "object") for strict mode'
        return None, [SchemaProblem("", reason)]
    walk = _Strict(schema)
    out = walk.node(schema, ())
    if not walk.within(limits):  # else: the exact count could only agree
        _check_limits(out, limits, walk.out)
    if walk.out:
        return None, walk.out
    return out, []


@final
class _Strict:
    """One rewrite: the root (for `$ref`), the problems met, the `$ref`s being inlined, and
    upper bounds of what `_check_limits` counts (so a schema far inside them is not counted)."""

    __slots__ = ("enum_values", "inlining", "objects", "out", "properties", "root")

    def __init__(self, root: FrozenJson) -> None:
        self.root = root
        self.out: list[SchemaProblem] = []
        self.inlining: set[str] = set()
        self.properties = 0
        """Properties of every object made (each is in the output once)."""
        self.objects = 0
        """Objects made with properties: no chain of nested ones is longer."""
        self.enum_values = 0
        """Enum values made, and one for each null a property was given."""

    def within(self, limits: OpenAILimits) -> bool:
        """Whether the bounds alone show the output inside `limits`."""
        return (
            self.properties <= limits.properties
            and self.objects <= limits.nesting
            and self.enum_values <= limits.enum_values
        )

    def add(self, at: _Path, reason: str) -> None:
        """Record one of the problems met."""
        self.out.append(problem_at(at, reason))

    def node(self, schema: object, at: _Path) -> dict[str, JsonValue]:
        """The strict form of one subschema (problems go to `self.out`)."""
        scalar = lone_scalar_type(schema)
        if scalar is not None:  # most properties: what the walk below would make of it
            return {"type": scalar}
        if not isinstance(schema, dict):
            self.add(at, f"the schema {describe_value(schema)} has no strict form")
            return {}
        out: dict[str, JsonValue] = {}
        known = len(self.out)
        for key, value in schema.items():
            if key in _KEPT:
                out[key] = value if type(value) in SCALAR_KINDS else self.thawed(key, value)
            elif key == "properties" and isinstance(value, dict):
                out[key] = self.properties_of(schema, value, (*at, key))
            elif key not in _SKIPPED:
                self.keyword(key, value, (*at, key), out)
        if _TYPED.isdisjoint(schema) and len(self.out) == known:  # else: said already
            self.add(at, "no type, enum, const, anyOf, oneOf or $ref: any JSON value goes")
        if "$ref" in out and len(out) > 1:
            return self.inline(out, at)
        declared = out.get("type")
        types = declared if isinstance(declared, list) else (declared,)
        if "object" in types:
            self.close(out, at, extra_declared="additionalProperties" in schema)
        if "array" in types and "items" not in out:
            self.add(at, "an array without items accepts any JSON items")
        return out

    def thawed(self, key: str, value: FrozenJson) -> JsonValue:
        """A kept keyword's value that is not a scalar, as plain JSON (an enum's values counted)."""
        plain = thaw_json(value)
        if key == "enum" and isinstance(plain, list):
            self.enum_values += len(plain)
        return plain

    def properties_of(
        self, schema: dict[str, FrozenJson], value: dict[str, FrozenJson], here: _Path
    ) -> dict[str, JsonValue]:
        """The strict form of `properties`: each optional property made nullable."""
        required = schema.get("required")
        names = required if isinstance(required, list | str) else ()
        out: dict[str, JsonValue] = {}
        for name, sub in value.items():
            made = self.node(sub, (*here, name))
            if name not in names and not accepts_null(sub, self.root):
                made = _nullable(made)
                self.enum_values += 1  # if it was an enum, a null joined it
            out[name] = made
        self.properties += len(out)
        self.objects += 1
        return out

    def keyword(self, key: str, value: FrozenJson, here: _Path, out: dict[str, JsonValue]) -> None:
        """Rewrite one keyword into `out` (one neither kept as it is, nor skipped, nor a
        `properties` object), or record why strict mode cannot take it."""
        if key == "additionalProperties":
            if value is not False:
                self.add(here, "an open object (additionalProperties is not false)")
        elif key in ("items", "anyOf", "oneOf", "$defs"):
            self.subschemas(key, value, here, out)
        elif _kept_value(key, value):
            out[key] = str(value)
        elif key == "format":
            self.add(here, f"format {value!r} is not one strict mode supports")
        else:
            self.add(here, f"keyword {key!r} is not supported by strict mode")

    def subschemas(self, key: str, value: object, here: _Path, out: dict[str, JsonValue]) -> None:
        """Rewrite `items`, `$defs`, `anyOf` or `oneOf` (into `anyOf` when it is exclusive)."""
        if key == "items":
            out[key] = self.node(value, here)
        elif key == "$defs" and isinstance(value, dict):
            out[key] = {name: self.node(sub, (*here, name)) for name, sub in value.items()}
        elif isinstance(value, list):
            if key == "oneOf" and not exclusive(value, self.root):
                self.add(here, "oneOf whose branches may overlap (anyOf would accept more)")
            out["anyOf"] = [self.node(sub, (*here, i)) for i, sub in enumerate(value)]
        else:
            self.add(here, f"{key} is malformed")

    def close(self, out: dict[str, JsonValue], at: _Path, *, extra_declared: bool) -> None:
        """Close an object: every property required, no additional properties."""
        properties = out.get("properties")
        if not isinstance(properties, dict):
            if not extra_declared:  # else: closed already, or reported as open
                self.add(at, "an open object: it declares no properties, so any key goes")
            properties = {}
        out["required"] = list(properties)
        out["additionalProperties"] = False

    def inline(self, out: dict[str, JsonValue], at: _Path) -> dict[str, JsonValue]:
        """Inline a `$ref` that has a description or title beside it (strict mode needs it)."""
        reference = str(out.pop("$ref"))
        if not out.keys() <= _LABELS:
            extra = ", ".join(sorted(out.keys() - _LABELS))
            self.add((*at, "$ref"), f"$ref with constraints beside it ({extra})")
            return out
        target = resolve_local(self.root, reference)
        if reference in self.inlining or not isinstance(target, dict):
            self.add((*at, "$ref"), f"$ref {reference!r} cannot be inlined here")
            return out
        self.inlining.add(reference)
        inlined = self.node(target, at)
        self.inlining.discard(reference)
        return {**inlined, **out}


def _kept_value(key: str, value: object) -> bool:
    """Whether a `$ref` is local or a format is one strict mode supports."""
    if key == "$ref":
        return isinstance(value, str) and value.startswith("#")
    return key == "format" and value in OPENAI_FORMATS


def _nullable(out: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """A strict node that also accepts null, written the plainest way that is exact."""
    declared = out.get("type")
    if "const" not in out and "$ref" not in out and "anyOf" not in out:
        enum = out.get("enum")
        if isinstance(enum, list):
            out["enum"] = [*enum, None]
        if isinstance(declared, str):
            out["type"] = [declared, "null"]
        elif isinstance(declared, list):
            out["type"] = [*declared, "null"]
        return out
    branches = out.get("anyOf")
    if isinstance(branches, list) and "type" not in out:
        out["anyOf"] = [*branches, {"type": "null"}]
        return out
    labels = {key: out.pop(key) for key in sorted(_LABELS & out.keys())}
    return {"anyOf": [out, {"type": "null"}], **labels}


def _check_limits(
    schema: dict[str, JsonValue], limits: OpenAILimits, out: list[SchemaProblem]
) -> None:
    """Report a strict schema past the size limits (properties, nesting, enum values)."""
    count = _Count()
    count.walk(schema, 0, ())
    if count.properties > limits.properties:
        reason = f"{count.properties} object properties (strict mode allows {limits.properties})"
        out.append(problem_at((), reason))
    if count.deepest > limits.nesting:
        reason = f"objects nested {count.deepest} deep (at most {limits.nesting})"
        out.append(problem_at(count.deepest_at, reason))
    if count.enum_values > limits.enum_values:
        reason = f"{count.enum_values} enum values (strict mode allows {limits.enum_values})"
        out.append(problem_at((), reason))


@final
class _Count:
    """Properties, nesting and enum values of a strict schema ($defs each from level one)."""

    __slots__ = ("deepest", "deepest_at", "enum_values", "properties")

    def __init__(self) -> None:
        self.properties = 0
        self.enum_values = 0
        self.deepest = 0
        self.deepest_at: _Path = ()

    def walk(self, node: dict[str, JsonValue], depth: int, at: _Path) -> None:
        """Count one node and everything below it (only subschemas that are there are walked)."""
        properties = node.get("properties")
        if properties is not None:
            depth += 1
            if depth > self.deepest:
                self.deepest, self.deepest_at = depth, at
        enum = node.get("enum")
        if type(enum) is list:
            self.enum_values += len(enum)
        if type(properties) is dict:
            self.properties += len(properties)
            for name, sub in properties.items():
                if type(sub) is dict:
                    self.walk(sub, depth, (*at, "properties", name))
        items = node.get("items")
        if type(items) is dict:
            self.walk(items, depth, (*at, "items"))
        branches = node.get("anyOf")
        if type(branches) is list:
            for index, sub in enumerate(branches):
                if type(sub) is dict:
                    self.walk(sub, depth, (*at, "anyOf", index))
        defs = node.get("$defs")
        if type(defs) is dict:
            for name, sub in defs.items():
                if type(sub) is dict:
                    self.walk(sub, 0, ("$defs", name))
