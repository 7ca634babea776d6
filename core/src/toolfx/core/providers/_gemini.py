"""Gemini function declarations: rewrite a parameter schema into Gemini's OpenAPI 3.0 subset.

`gemini_parameters` keeps what Gemini's `Schema` has and reports everything else it drops, by
JSON pointer into the original schema:

- kept: `type` (one name, upper-case, as Gemini's `Type` enum spells it), `properties`,
  `required`, `items`, `description`, `title`, `default`, `minItems`, `maxItems`, `minimum`,
  `maximum`, `anyOf` (the Gemini API takes it), `enum` of strings, and `format: date-time`;
- rewritten: a `null` in `type` or `enum` and a `{"type": "null"}` union branch become
  `nullable: true`; several types become an `anyOf` of one type each; a string `const`
  becomes a one-value `enum`; `oneOf` becomes `anyOf` (with a note unless its branches
  provably exclude each other); a local `$ref` is inlined from `$defs`, since Gemini has none;
- dropped, with a note: `additionalProperties` (even false: the model may add keys),
  non-string `enum` and `const`, other formats, `pattern`, string lengths, exclusive bounds, a
  recursive `$ref` (which cannot be inlined), and every keyword Gemini's schema does not have.

A root object with no properties gives no schema at all: Gemini refuses empty objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, final

from toolfx.core.json import thaw_json
from toolfx.core.providers._schema import (
    SCALAR_KINDS,
    exclusive,
    json_kind,
    local_segments,
    lone_scalar_type,
    problem_at,
    resolve_local,
)

if TYPE_CHECKING:
    from toolfx.core.json import FrozenJson, JsonValue
    from toolfx.core.jsonschema import SchemaProblem

__all__ = ["GEMINI_FORMATS", "gemini_parameters"]

GEMINI_FORMATS: Final = frozenset({"date-time"})
"""The JSON Schema formats the Gemini API takes (for strings)."""

_KEPT: Final = frozenset(
    {"description", "title", "default", "minItems", "maxItems", "minimum", "maximum", "required"}
)


_Path = tuple[str | int, ...]


def gemini_parameters(
    schema: FrozenJson,
) -> tuple[dict[str, JsonValue] | None, list[SchemaProblem]]:
    """Gemini's form of a parameter schema (None when it has no parameters), and every loss."""
    walk = _Gemini(schema)
    out = walk.node(schema, ())
    problems = walk.out
    if len(problems) > 1:  # a $defs entry inlined twice: noted once
        problems = list(dict.fromkeys(problems))
    if out.get("type") == "OBJECT" and not out.get("properties"):
        return None, problems
    return out, problems


@final
class _Gemini:
    """One rewrite: the root (for `$ref`), the losses met, and the `$ref`s being inlined."""

    __slots__ = ("inlining", "out", "root")

    def __init__(self, root: FrozenJson) -> None:
        self.root = root
        self.out: list[SchemaProblem] = []
        self.inlining: list[str] = []

    def add(self, at: _Path, reason: str) -> None:
        """Record one of the losses met."""
        self.out.append(problem_at(at, reason))

    def node(self, schema: object, at: _Path) -> dict[str, JsonValue]:
        """Gemini's form of one subschema (losses go to `self.out`)."""
        scalar = lone_scalar_type(schema)
        if scalar is not None:  # most properties: what the walk below would make of it
            return {"type": scalar.upper()}
        if not isinstance(schema, dict):
            if schema is False:
                self.add(at, "a false schema (no value) has no Gemini form")
            return {}
        out: dict[str, JsonValue] = {}
        for key, value in schema.items():
            if key in _KEPT:
                out[key] = value if type(value) in SCALAR_KINDS else thaw_json(value)
            elif key == "type" and type(value) is str and value != "null":
                out[key] = value.upper()  # the usual case: one type, as it is
            elif key == "type":
                self.types(value, out)
            elif key == "properties" and isinstance(value, dict):
                here = (*at, key)
                out[key] = {name: self.node(sub, (*here, name)) for name, sub in value.items()}
            else:
                self.keyword(key, value, (*at, key), out)
        if at and out.get("type") == "OBJECT" and not out.get("properties"):
            self.add(at, "an object with no declared properties: Gemini can only send {}")
        return out

    def keyword(self, key: str, value: FrozenJson, here: _Path, out: dict[str, JsonValue]) -> None:
        """Rewrite one keyword into `out` (one not kept as it is, nor `type`, nor a `properties`
        object), or record that Gemini drops it."""
        if key == "items":
            out[key] = self.node(value, here)
        elif key in ("enum", "const"):
            self.choices(key, value, here, out)
        elif key == "format" and value in GEMINI_FORMATS:
            out[key] = value
        elif key == "format":
            self.add(here, f"format {value!r} is not one Gemini takes: dropped")
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            self.union(key, value, here, out)
        elif key == "$ref" and isinstance(value, str):
            self.inline(value, here, out)
        elif key != "$defs":  # $defs: inlined where referenced
            self.add(here, f"keyword {key!r} is not in Gemini's schema: dropped")

    def types(self, value: object, out: dict[str, JsonValue]) -> None:
        """A `type` other than one non-null name: `nullable` for its null, and its one name or
        an `anyOf` of its several."""
        names = [value] if isinstance(value, str) else list(_as_list(value))
        real = [str(name).upper() for name in names if name != "null"]
        if len(real) < len(names):
            out["nullable"] = True
        if len(real) == 1:
            out["type"] = real[0]
        elif real:
            out["anyOf"] = [{"type": name} for name in real]
        else:
            out["type"] = "NULL"

    def choices(self, key: str, value: object, here: _Path, out: dict[str, JsonValue]) -> None:
        """An enum (or const) of strings, `nullable` for a null among them; else just a type."""
        values = list(_as_list(value)) if key == "enum" else [value]
        present = [v for v in values if v is not None]
        kinds = {json_kind(v) for v in present}
        if kinds == {"integer", "number"}:
            kinds = {"number"}
        if len(kinds) == 1:
            out.setdefault("type", next(iter(kinds)).upper())
        elif not present:
            out.setdefault("type", "NULL")
        if present and len(present) < len(values):
            out["nullable"] = True
        if kinds == {"string"}:
            out["enum"] = [str(v) for v in present]
        elif present:
            what = f"const {value!r} is not a string" if key == "const" else "enum not all strings"
            self.add(here, f"{what} (Gemini pins only strings): dropped")

    def union(
        self, key: str, branches: Sequence[object], here: _Path, out: dict[str, JsonValue]
    ) -> None:
        """`anyOf` of the branches, a null branch as `nullable`, one branch merged in."""
        if key == "oneOf" and not exclusive(branches, self.root):
            self.add(here, "oneOf became anyOf: its branches may overlap")
        converted = [self.node(sub, (*here, index)) for index, sub in enumerate(branches)]
        real: list[JsonValue] = [branch for branch in converted if branch.get("type") != "NULL"]
        if len(real) == 1 and isinstance(real[0], dict):
            _merge(out, real[0])
        elif real:
            out["anyOf"] = real
        if len(real) < len(converted):
            out["nullable"] = True

    def inline(self, reference: str, here: _Path, out: dict[str, JsonValue]) -> None:
        """Put the schema a local `$ref` names in its place, unless that would recurse."""
        target = resolve_local(self.root, reference)
        if target is None or reference in self.inlining:
            why = "recursive" if target is not None else "unresolvable"
            self.add(here, f"a {why} $ref ({reference}) has no Gemini form: dropped")
            return
        self.inlining.append(reference)
        _merge(out, self.node(target, local_segments(reference)))
        self.inlining.pop()


def _as_list(value: object) -> Sequence[object]:
    return value if isinstance(value, list) else ()


def _merge(out: dict[str, JsonValue], inner: dict[str, JsonValue]) -> None:
    """Add an inlined or single-branch schema; what `out` says itself wins."""
    for key, value in inner.items():
        out.setdefault(key, value)
