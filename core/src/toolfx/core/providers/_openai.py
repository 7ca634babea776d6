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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, final

from toolfx.core.json import describe_value, thaw_json
from toolfx.core.jsonschema import Problems, SchemaProblem
from toolfx.core.providers._schema import SCALAR_KINDS, accepts_null, exclusive, resolve_local

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
    _check_limits(out, limits, walk.out)
    if walk.out.items:
        return None, walk.out.items
    return out, []


@final
class _Strict:
    """One rewrite: the root (for `$ref`), the problems met, and the `$ref`s being inlined."""

    __slots__ = ("inlining", "out", "root")

    def __init__(self, root: FrozenJson) -> None:
        self.root = root
        self.out = Problems()
        self.inlining: set[str] = set()

    def node(self, schema: object, at: _Path) -> dict[str, JsonValue]:
        """The strict form of one subschema (problems go to `self.out`)."""
        if not isinstance(schema, dict):
            self.out.add(at, f"the schema {describe_value(schema)} has no strict form")
            return {}
        out: dict[str, JsonValue] = {}
        known = len(self.out.items)
        for key, value in schema.items():
            if key in _KEPT:
                out[key] = value if type(value) in SCALAR_KINDS else thaw_json(value)
            elif key not in _SKIPPED:
                self.keyword(schema, key, value, (*at, key), out)
        if not _TYPED & schema.keys() and len(self.out.items) == known:  # else: said already
            self.out.add(at, "no type, enum, const, anyOf, oneOf or $ref: any JSON value goes")
        if "$ref" in out and len(out) > 1:
            return self.inline(out, at)
        types = _types(out)
        if "object" in types:
            self.close(out, at, extra_declared="additionalProperties" in schema)
        if "array" in types and "items" not in out:
            self.out.add(at, "an array without items accepts any JSON items")
        return out

    def keyword(
        self,
        schema: dict[str, FrozenJson],
        key: str,
        value: FrozenJson,
        here: _Path,
        out: dict[str, JsonValue],
    ) -> None:
        """Rewrite one keyword into `out` (one neither kept as it is nor skipped), or record
        why strict mode cannot take it."""
        if key == "properties" and isinstance(value, dict):
            required = schema.get("required")
            names = required if isinstance(required, list | str) else ()
            out[key] = {
                name: self.property(sub, name in names, (*here, name))
                for name, sub in value.items()
            }
        elif key == "additionalProperties":
            if value is not False:
                self.out.add(here, "an open object (additionalProperties is not false)")
        elif key in ("items", "anyOf", "oneOf", "$defs"):
            self.subschemas(key, value, here, out)
        elif _kept_value(key, value):
            out[key] = str(value)
        elif key == "format":
            self.out.add(here, f"format {value!r} is not one strict mode supports")
        else:
            self.out.add(here, f"keyword {key!r} is not supported by strict mode")

    def subschemas(self, key: str, value: object, here: _Path, out: dict[str, JsonValue]) -> None:
        """Rewrite `items`, `$defs`, `anyOf` or `oneOf` (into `anyOf` when it is exclusive)."""
        if key == "items":
            out[key] = self.node(value, here)
        elif key == "$defs" and isinstance(value, dict):
            out[key] = {name: self.node(sub, (*here, name)) for name, sub in value.items()}
        elif isinstance(value, list):
            if key == "oneOf" and not exclusive(value, self.root):
                self.out.add(here, "oneOf whose branches may overlap (anyOf would accept more)")
            out["anyOf"] = [self.node(sub, (*here, i)) for i, sub in enumerate(value)]
        else:
            self.out.add(here, f"{key} is malformed")

    def property(self, schema: object, required: bool, at: _Path) -> dict[str, JsonValue]:
        """A property's strict form: made nullable when it was optional."""
        out = self.node(schema, at)
        if required or accepts_null(schema, self.root):
            return out
        return _nullable(out)

    def close(self, out: dict[str, JsonValue], at: _Path, *, extra_declared: bool) -> None:
        """Close an object: every property required, no additional properties."""
        properties = out.get("properties")
        if not isinstance(properties, dict):
            if not extra_declared:  # else: closed already, or reported as open
                self.out.add(at, "an open object: it declares no properties, so any key goes")
            properties = {}
        out["required"] = list(properties)
        out["additionalProperties"] = False

    def inline(self, out: dict[str, JsonValue], at: _Path) -> dict[str, JsonValue]:
        """Inline a `$ref` that has a description or title beside it (strict mode needs it)."""
        reference = str(out.pop("$ref"))
        if not out.keys() <= _LABELS:
            extra = ", ".join(sorted(out.keys() - _LABELS))
            self.out.add((*at, "$ref"), f"$ref with constraints beside it ({extra})")
            return out
        target = resolve_local(self.root, reference)
        if reference in self.inlining or not isinstance(target, dict):
            self.out.add((*at, "$ref"), f"$ref {reference!r} cannot be inlined here")
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


def _types(out: Mapping[str, JsonValue]) -> tuple[JsonValue, ...]:
    declared = out.get("type")
    return tuple(declared) if isinstance(declared, list) else (declared,)


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


def _check_limits(schema: dict[str, JsonValue], limits: OpenAILimits, out: Problems) -> None:
    """Report a strict schema past the size limits (properties, nesting, enum values)."""
    count = _Count()
    count.walk(schema, 0, ())
    if count.properties > limits.properties:
        out.add(
            (), f"{count.properties} object properties (strict mode allows {limits.properties})"
        )
    if count.deepest > limits.nesting:
        out.add(count.deepest_at, f"objects nested {count.deepest} deep (at most {limits.nesting})")
    if count.enum_values > limits.enum_values:
        out.add((), f"{count.enum_values} enum values (strict mode allows {limits.enum_values})")


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
