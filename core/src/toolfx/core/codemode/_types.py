"""Python type annotations from JSON Schemas, with the TypedDict declarations they need.

The rules: string/integer/number/boolean/null become `str`/`int`/`float`/`bool`/`None`; an array
`list[T]` of its `items` (`list[Any]` without one schema for them); an object with properties a
`TypedDict` (keys not `required` are `NotRequired`), one with only `additionalProperties` a
`dict[str, T]`; `enum`/`const` a `Literal[...]` of their str, bool, None and 64-bit int members
(other members widen to their type); `anyOf`, `oneOf` and type lists a union; a one-branch
`allOf` that branch; a local `$ref` (`#`, `#/$defs/...`, any JSON pointer) its target, an object
target once as a class named after the pointer's last segment, referenced by name (a cycle through
such a class is a forward reference string; any other cycle is `Any`). Everything else is `Any`.

Bounds: past `MAX_DEPTH` nested schemas, past `MAX_NODES` schema nodes or once a tool's
declarations and reused annotations reach `MAX_CHARS` characters, a schema is `Any` (a class
already named is declared `dict[str, Any]`, since a forward reference may name it); so a tool's
types cost time and text linear in its schemas plus a constant, whatever their shape (a
self-referencing Python object included).
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping, Sequence
from typing import Final, final
from urllib.parse import unquote

from toolfx.core.codemode._identifiers import (
    MAX_NAME_CHARS,
    Namespace,
    pascal_name,
    plain_identifier,
)
from toolfx.core.codemode._literals import comment_text, string_literal
from toolfx.core.jsonschema import NO_TARGET, follow_pointer

__all__ = [
    "ANY",
    "MAX_CHARS",
    "MAX_DEPTH",
    "MAX_NODES",
    "Budget",
    "Declarations",
    "SchemaTypes",
    "local_target",
]

MAX_DEPTH: Final = 16
"""Schemas nested deeper than this (counting `$ref` hops) are `Any`."""

MAX_NODES: Final = 4096
"""Schema nodes one tool's parameters and output may visit; the rest are `Any`."""

MAX_CHARS: Final = 32_768
"""Characters one tool's declarations and reused annotations may take; past them, `Any`."""

ANY: Final = "Any"
_SCALARS: Final = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "null": "None",
}
_INT_LITERAL_BOUND: Final = 2**63
_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_Field = tuple[str, str, str]
_Shape = tuple[str, str | None, tuple[_Field, ...]]
_SOFT_KEYWORDS: Final = frozenset((*keyword.softkwlist, "type"))


@final
class Budget:
    """What one tool may still spend: schema nodes and characters."""

    __slots__ = ("chars", "nodes")

    def __init__(self) -> None:
        self.nodes = MAX_NODES
        self.chars = MAX_CHARS

    def visit(self) -> bool:
        """Take one node; False once none are left."""
        self.nodes -= 1
        return self.nodes >= 0 and self.chars >= 0

    def charge(self, text: str) -> bool:
        """Take the characters of `text`; False if they were not there to take."""
        self.chars -= len(text)
        return self.chars >= 0


@final
class Declarations:
    """The type declarations of a whole stub module, in dependency order, and their namespace.

    A TypedDict whose stem, description and fields match one declared before is that one, so a
    model several tools share (the same `$defs` entry, say) is declared once.
    """

    __slots__ = ("lines", "names", "shapes")

    def __init__(self, names: Namespace) -> None:
        self.names = names
        self.lines: list[str] = []
        self.shapes: dict[_Shape, str] = {}


def _union(members: Sequence[str]) -> str:
    unique = list(dict.fromkeys(members))
    return ANY if not unique or ANY in unique else " | ".join(unique)


def _literal_member(value: object) -> str | None:
    """The Literal form of an enum member, or None when it widens."""
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, int) and -_INT_LITERAL_BOUND <= value < _INT_LITERAL_BOUND:
        return str(value)
    return None


def _widened(value: object) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "int" if isinstance(value, int) else "float"
    if isinstance(value, Mapping):
        return "dict[str, Any]"
    if isinstance(value, Sequence) and not isinstance(value, str):
        return "list[Any]"
    return ANY


def local_target(root: object, reference: str) -> object:
    """What a local reference (`#`, `#/a/b`) points to inside `root`, or None."""
    if not reference.startswith("#"):
        return None
    fragment = unquote(reference[1:])
    if fragment and not fragment.startswith("/"):
        return None  # an anchor: not resolved here
    node = follow_pointer(root, fragment)
    return None if node is NO_TARGET else node


def _object_properties(schema: Mapping[str, object]) -> Mapping[str, object] | None:
    """The properties of a plain object schema (no union, enum or reference beside them).

    Only such a schema is a class of its own when a reference names it: the reference then
    stands for the class, which a cycle through it can name before it is declared.
    """
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        return None
    if schema.get("type", "object") != "object":
        return None
    if any(k in schema for k in ("$ref", "enum", "const", "anyOf", "oneOf")):
        return None
    return properties


@final
class SchemaTypes:
    """Annotations for the schemas of one JSON Schema document (a tool's parameters or output)."""

    __slots__ = (
        "_budget",
        "_declarations",
        "_done",
        "_forwarded",
        "_pending",
        "_root",
        "_root_hint",
    )

    def __init__(
        self,
        root: object,
        root_hint: tuple[str, ...],
        declarations: Declarations,
        budget: Budget,
    ) -> None:
        self._root = root
        self._root_hint = root_hint
        self._declarations = declarations
        self._budget = budget
        self._done: dict[str, str] = {}
        self._pending: dict[str, str | None] = {}
        self._forwarded: set[str] = set()

    def annotation(self, schema: object, hint: tuple[str, ...], depth: int) -> str:
        """The annotation of `schema`; `hint` names a class it needs (its path in the document)."""
        if depth > MAX_DEPTH or not self._budget.visit() or not isinstance(schema, Mapping):
            return ANY
        reference = schema.get("$ref")
        if isinstance(reference, str):
            return self._reference(reference, depth)
        if "const" in schema:
            return self._literal((schema["const"],))
        members = schema.get("enum")
        if isinstance(members, Sequence) and not isinstance(members, str):
            return self._literal(members)
        for combinator in ("anyOf", "oneOf"):
            branches = schema.get(combinator)
            if isinstance(branches, Sequence) and not isinstance(branches, str):
                return _union([self.annotation(b, hint, depth + 1) for b in branches])
        every = schema.get("allOf")
        if isinstance(every, Sequence) and not isinstance(every, str) and len(every) == 1:
            return self.annotation(every[0], hint, depth + 1)
        kinds = schema.get("type")
        if isinstance(kinds, str):
            return self._typed(kinds, schema, hint, depth)
        if isinstance(kinds, Sequence) and kinds:
            return _union([self._typed(k, schema, hint, depth) for k in kinds])
        if "properties" in schema:
            return self._typed("object", schema, hint, depth)
        if "items" in schema:
            return self._typed("array", schema, hint, depth)
        return ANY

    def _typed(
        self, kind: object, schema: Mapping[str, object], hint: tuple[str, ...], depth: int
    ) -> str:
        scalar = _SCALARS.get(kind) if isinstance(kind, str) else None
        if scalar is not None:
            return scalar
        if kind == "array":
            items = schema.get("items")
            if isinstance(items, Mapping | bool):
                return f"list[{self.annotation(items, (*hint, 'Item'), depth + 1)}]"
            return "list[Any]"
        if kind == "object":
            properties = schema.get("properties")
            if isinstance(properties, Mapping) and properties:
                return self._typed_dict(pascal_name(hint), schema, properties, depth)
            extra = schema.get("additionalProperties")
            if isinstance(extra, Mapping):
                return f"dict[str, {self.annotation(extra, (*hint, 'Value'), depth + 1)}]"
            return "dict[str, Any]"
        return ANY

    def _literal(self, members: Sequence[object]) -> str:
        rendered: list[str] = []
        widened: list[str] = []
        for member in members:
            if member is None:
                widened.append("None")
                continue
            text = _literal_member(member)
            if text is None:
                widened.append(_widened(member))
            elif not self._budget.charge(text):
                return ANY
            else:
                rendered.append(text)
        literal = [f"Literal[{', '.join(dict.fromkeys(rendered))}]"] if rendered else []
        return _union(literal + widened)

    def _reference(self, reference: str, depth: int) -> str:
        done = self._done.get(reference)
        if done is not None:
            return done if self._budget.charge(done) else ANY
        if reference in self._pending:
            pending = self._pending[reference]
            if pending is None:
                return ANY
            self._forwarded.add(reference)
            return string_literal(pending)
        target = local_target(self._root, reference)
        if not isinstance(target, Mapping):
            return ANY
        last = unquote(reference[1:]).rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        hint = (last,) if last else self._root_hint
        properties = _object_properties(target)
        if properties is None:
            self._pending[reference] = None
            text = self.annotation(target, hint, depth + 1)
        else:
            text = self._typed_dict(pascal_name(hint), target, properties, depth + 1, reference)
        del self._pending[reference]
        self._done[reference] = text
        return text

    def _typed_dict(
        self,
        stem: str,
        schema: Mapping[str, object],
        properties: Mapping[str, object],
        depth: int,
        reference: str | None = None,
    ) -> str:
        """The name of the TypedDict for `schema`, declared now unless an identical one exists.

        The target of a `reference` is named before its fields, so that they can refer to it.
        """
        names = self._declarations.names
        name = None
        if reference is not None:
            name = names.allocate(stem)
            self._pending[reference] = name
        required = schema.get("required")
        needed = (
            {r for r in required if isinstance(r, str)}
            if isinstance(required, Sequence) and not isinstance(required, str)
            else set()
        )
        fields: list[_Field] = []
        for key, subschema in properties.items():
            annotation = self.annotation(subschema, (stem, key[:MAX_NAME_CHARS]), depth + 1)
            typed = annotation if key in needed else f"NotRequired[{annotation}]"
            described = subschema.get("description") if isinstance(subschema, Mapping) else None
            note = f"  # {comment_text(described)}" if isinstance(described, str) else ""
            fields.append((key, typed, note))
        described = schema.get("description")
        shape = (stem, described if isinstance(described, str) else None, tuple(fields))
        forwarded = reference in self._forwarded  # its own name is in its fields: keep it
        same = self._declarations.shapes.get(shape)
        if same is not None and not forwarded:
            if name is not None:
                names.release(name)
            return same
        if name is None:
            name = names.allocate(stem)
        lines = _declaration(name, shape[1], fields)
        if not self._budget.charge("".join(lines)):
            lines = [f"{name} = dict[str, Any]", ""]  # a forward reference may name it already
        elif not forwarded:
            self._declarations.shapes[shape] = name
        self._declarations.lines.extend(lines)
        return name


def _declaration(name: str, description: str | None, fields: list[_Field]) -> list[str]:
    """A TypedDict's lines: class syntax when every key can be a field name, else functional."""
    lines = [f"# {comment_text(description)}"] if description is not None else []
    used = {w for _, typed, _ in fields for w in _WORD.findall(typed)}
    if all(_field_name(key) and key not in used for key, _, _ in fields):
        lines.append(f"class {name}(TypedDict):")
        lines.extend(f"    {key}: {typed}{note}" for key, typed, note in fields)
    else:
        lines.append(f"{name} = TypedDict(")
        lines.append(f'    "{name}",')
        lines.append("    {")
        lines.extend(f"        {string_literal(k)}: {typed},{note}" for k, typed, note in fields)
        lines.append("    },")
        lines.append(")")
    lines.append("")
    return lines


def _field_name(key: str) -> bool:
    """Whether `key` can be written as a class-syntax field (no soft keyword, no mangling)."""
    return plain_identifier(key) and not key.startswith("__") and key not in _SOFT_KEYWORDS
