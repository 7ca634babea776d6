"""Derivation of JSON Schema nodes and decoders from Python types (used by `schema_of`)."""

from __future__ import annotations

import dataclasses
import enum
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Literal, NoReturn, Union, get_args, get_origin

import typing_extensions
from returns.result import Success
from typing_extensions import is_typeddict

from toolfx.core.json import JsonValue
from toolfx.core.jsonschema import compile_json_schema
from toolfx.core.schema_decode import (
    DecodeProblem,
    Decoder,
    Node,
    array_decoder,
    dataclass_decoder,
    decode_float,
    decode_int,
    decode_int_literal,
    to_plain,
    typed_dict_decoder,
    union_decoder,
)

__all__ = ["SchemaDerivationError", "derive"]


class SchemaDerivationError(TypeError):
    """A type that cannot become a JSON Schema, with the place (type and field) that failed."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"cannot derive a JSON Schema for {where}: {reason}")
        self.where = where
        self.reason = reason


def _fail(where: str, reason: str) -> NoReturn:
    raise SchemaDerivationError(where, reason)


def _name(tp: object) -> str:
    name = getattr(tp, "__name__", None)
    return name if isinstance(name, str) and get_origin(tp) is None else repr(tp)


class _Deriver:
    """One derivation: remembers the classes being derived to catch recursive types."""

    def __init__(self) -> None:
        self.active: list[object] = []

    def node(self, tp: object, where: str) -> Node:
        if tp is JsonValue:
            return Node({})
        if tp is str:
            return Node({"type": "string"}, kinds=frozenset({"string"}))
        if tp is bool:
            return Node({"type": "boolean"}, kinds=frozenset({"boolean"}))
        if tp is int:
            return Node({"type": "integer"}, decode_int, frozenset({"integer"}))
        if tp is float:
            return Node({"type": "number"}, decode_float, frozenset({"integer", "number"}))
        if tp is None or tp is type(None):
            return Node({"type": "null"}, kinds=frozenset({"null"}))
        if isinstance(tp, typing.NewType):
            return self.node(tp.__supertype__, where)
        origin = get_origin(tp)
        if origin is typing.Annotated or origin is typing_extensions.Annotated:
            return self.annotated(tp, where)
        if origin is Literal or origin is typing_extensions.Literal:
            return _literal(get_args(tp), where)
        if origin is Union or origin is types.UnionType:
            return self.union(get_args(tp), where)
        if origin in (list, tuple, Sequence, typing.Sequence):
            return self.array(tp, origin, where)
        if origin in (dict, Mapping):
            return _open_object(tp, where)
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return _enum(tp, where)
        if is_typeddict(tp) and isinstance(tp, type):
            return self.guarded(tp, where, self.typed_dict)
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            return self.guarded(tp, where, self.dataclass)
        return _unsupported(tp, where)

    def guarded(self, tp: type, where: str, derive_class: Callable[[type, str], Node]) -> Node:
        if tp in self.active:
            _fail(
                where,
                f"{tp.__name__} refers to itself; recursive types need $ref, which the "
                "portable subset leaves out",
            )
        self.active.append(tp)
        try:
            return derive_class(tp, where)
        finally:
            self.active.pop()

    def annotated(self, tp: object, where: str) -> Node:
        inner, *metadata = get_args(tp)
        descriptions = [m for m in metadata if isinstance(m, str)]
        others = [m for m in metadata if not isinstance(m, str)]
        if others:
            _fail(
                where,
                f"Annotated metadata {others[0]!r} is not understood; only a "
                "description string is, and nothing may be accepted without being enforced",
            )
        node = self.node(inner, where)
        if not descriptions:
            return node
        schema = {**node.schema, "description": " ".join(descriptions)}
        return Node(schema, node.decode, node.kinds, node.tags)

    def array(self, tp: object, origin: object, where: str) -> Node:
        args = get_args(tp)
        if origin is tuple and (len(args) != 2 or args[1] is not Ellipsis):
            _fail(
                where,
                f"{tp!r} is a fixed-length tuple, which needs prefixItems (outside "
                "the portable subset); use tuple[T, ...]",
            )
        if not args:
            _fail(where, f"{_name(tp)} needs an item type, e.g. list[str]")
        item = self.node(args[0], f"{where}[]")
        decode = array_decoder(item.decode, to_tuple=origin is tuple)
        return Node({"type": "array", "items": item.schema}, decode, frozenset({"array"}))

    def union(self, members: tuple[object, ...], where: str) -> Node:
        literals = [m for m in members if get_origin(m) is Literal]
        others = [m for m in members if get_origin(m) is not Literal]
        if literals:
            merged = tuple(v for lit in literals for v in get_args(lit))
            others.insert(0, Literal.__getitem__(merged))
        if len(others) == 1:
            return self.node(others[0], where)
        nodes = [self.node(m, where) for m in others]
        _check_disjoint(others, nodes, where)
        return Node(
            {"oneOf": [n.schema for n in nodes]},
            union_decoder(nodes, _union_tag(nodes, where)),
            frozenset().union(*(n.kinds for n in nodes)),
        )

    def typed_dict(self, tp: type, where: str) -> Node:
        hints = _hints(tp, where)
        required_keys = _required_keys(tp, hints)
        properties: dict[str, Any] = {}
        decoders: list[tuple[str, Decoder]] = []
        tags: dict[str, frozenset[object]] = {}
        for key, hint in hints.items():
            node = self.node(_strip_qualifiers(hint), f"{where}.{key}")
            properties[key] = node.schema
            if node.decode is not None:
                decoders.append((key, node.decode))
            if key in required_keys and _is_literal(node.schema):
                tags[key] = _literal_values(node.schema)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        required = [key for key in hints if key in required_keys]
        if required:
            schema["required"] = required
        schema["additionalProperties"] = _allows_extra_keys(tp, where)
        _add_doc(schema, tp.__doc__)
        return Node(schema, typed_dict_decoder(decoders), frozenset({"object"}), tags)

    def dataclass(self, tp: type, where: str) -> Node:
        params = getattr(tp, "__dataclass_params__", None)
        if params is None or not params.frozen:
            _fail(
                where,
                f"dataclass {tp.__name__} must be frozen (@dataclass(frozen=True)), "
                "so decoded values cannot change",
            )
        hints = _hints(tp, where)
        properties: dict[str, Any] = {}
        required: list[str] = []
        fields: list[tuple[str, Decoder | None]] = []
        defaults: dict[str, Callable[[], Any]] = {}
        tags: dict[str, frozenset[object]] = {}
        for fld in dataclasses.fields(tp):
            if not fld.init:
                continue
            node = self.node(hints[fld.name], f"{where}.{fld.name}")
            schema = node.schema
            has_default = fld.default is not dataclasses.MISSING
            if has_default and _is_json_scalar(fld.default):
                schema = {**schema, "default": fld.default}
            if not has_default and fld.default_factory is dataclasses.MISSING:
                required.append(fld.name)
                if _is_literal(schema):
                    tags[fld.name] = _literal_values(schema)
            properties[fld.name] = schema
            fields.append((fld.name, node.decode))
            default = _decoded_default(fld, node)
            if default is not None:
                defaults[fld.name] = default
        result: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            result["required"] = required
        result["additionalProperties"] = False
        doc = tp.__doc__
        if doc and not doc.startswith(f"{tp.__name__}("):  # skip the generated signature doc
            _add_doc(result, doc)
        return Node(result, dataclass_decoder(tp, fields, defaults), frozenset({"object"}), tags)


def _hints(tp: type, where: str) -> dict[str, Any]:
    try:
        return typing.get_type_hints(tp, include_extras=True)
    except NameError as exc:
        _fail(
            where,
            f"an annotation of {tp.__name__} cannot be resolved ({exc}); define the "
            "type at module level so its annotations can be evaluated",
        )


_NO_EXTRA_ITEMS: Final = getattr(typing_extensions, "NoExtraItems", None)
_NEVER: Final = (typing.Never, typing.NoReturn, typing_extensions.Never, typing_extensions.NoReturn)


def _allows_extra_keys(tp: type, where: str) -> bool:
    """Whether a TypedDict declares itself open (PEP 728); objects are closed otherwise.

    typing_extensions sets `__closed__` to None when `closed` is not given: that is not a
    declaration, so only `closed=False` or `extra_items=JsonValue` opens the object.
    """
    extra = getattr(tp, "__extra_items__", _NO_EXTRA_ITEMS)
    if extra is not _NO_EXTRA_ITEMS and extra is not None:
        extra = _strip_qualifiers(extra)
        if extra is JsonValue:
            return True
        if extra not in _NEVER:
            _fail(
                where,
                f"extra_items={extra!r} cannot be enforced (the portable subset has no schema "
                "for additional properties); use extra_items=JsonValue or closed=True",
            )
        return False
    return getattr(tp, "__closed__", None) is False


_REQUIRED: Final = (typing.Required, typing_extensions.Required)
_NOT_REQUIRED: Final = (typing.NotRequired, typing_extensions.NotRequired)


def _required_keys(tp: type, hints: Mapping[str, object]) -> frozenset[str]:
    """Required keys, trusting explicit Required/NotRequired over `__required_keys__`.

    Python 3.11 computes `__required_keys__` from string annotations (PEP 563) without seeing
    the qualifiers, so the evaluated hints have the last word.
    """
    baseline: frozenset[str] = getattr(tp, "__required_keys__", frozenset())
    required = set()
    for key, hint in hints.items():
        qualifiers = _qualifiers(hint)
        if any(q in _REQUIRED for q in qualifiers) or (
            key in baseline and not any(q in _NOT_REQUIRED for q in qualifiers)
        ):
            required.add(key)
    return frozenset(required)


_QUALIFIERS: Final = (*_REQUIRED, *_NOT_REQUIRED, typing_extensions.ReadOnly)
_ANNOTATED: Final = (typing.Annotated, typing_extensions.Annotated)


def _qualifiers(hint: object) -> list[object]:
    """The qualifiers (Required, NotRequired, ReadOnly) of a hint, also under Annotated."""
    found = []
    while True:
        origin = get_origin(hint)
        if origin in _QUALIFIERS:
            found.append(origin)
        elif origin not in _ANNOTATED:
            return found
        hint = get_args(hint)[0]


def _strip_qualifiers(hint: object) -> object:
    """The hint without its qualifiers, which may also sit inside Annotated (PEP 655)."""
    origin = get_origin(hint)
    if origin in _QUALIFIERS:
        return _strip_qualifiers(get_args(hint)[0])
    if origin in _ANNOTATED:
        inner, *metadata = get_args(hint)
        stripped = _strip_qualifiers(inner)
        if stripped is not inner:
            return typing.Annotated[(stripped, *metadata)]
    return hint


def _add_doc(schema: dict[str, Any], doc: str | None) -> None:
    if doc and doc.strip():
        schema["description"] = " ".join(doc.split())


def _is_json_scalar(value: object) -> bool:
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


def _literal(values: tuple[object, ...], where: str) -> Node:
    kinds: set[str] = set()
    for value in values:
        if value is None:
            kinds.add("null")
        elif type(value) in _SCALAR_KINDS:
            kinds.add(_SCALAR_KINDS[type(value)])
        else:
            _fail(where, f"Literal value {value!r} is not a JSON scalar (str, int, bool, None)")
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


def _is_literal(schema: Mapping[str, Any]) -> bool:
    return "enum" in schema or "const" in schema


def _literal_values(schema: Mapping[str, Any]) -> frozenset[object]:
    if "const" in schema:
        return frozenset({(type(schema["const"]), schema["const"])})
    return frozenset((type(v), v) for v in schema["enum"])


def _enum(tp: type[enum.Enum], where: str) -> Node:
    members = list(tp)
    values = [m.value for m in members]
    if not values:
        _fail(where, f"enum {tp.__name__} has no members")
    kinds = {_SCALAR_KINDS.get(type(v)) for v in values}
    if None in kinds or len(kinds) != 1:
        _fail(where, f"enum {tp.__name__} must have all-str or all-int values")
    kind = next(iter(kinds))
    assert kind is not None
    by_value = dict(zip(values, members, strict=True))

    def decode(value: Any) -> Any:
        return by_value[int(value) if kind == "integer" else value]

    return Node({"type": kind, "enum": values}, decode, frozenset({kind}))


def _open_object(tp: object, where: str) -> Node:
    args = get_args(tp)
    if len(args) != 2 or args[0] is not str or args[1] is not JsonValue:
        _fail(
            where,
            f"{tp!r}: only dict[str, JsonValue] maps are supported (the portable "
            "subset has no schema for additional properties); declare a TypedDict instead",
        )
    return Node({"type": "object"}, kinds=frozenset({"object"}))


def _unsupported(tp: object, where: str) -> NoReturn:
    if tp is Any or tp is object:
        _fail(where, f"{tp!r} says nothing about the JSON; use JsonValue for any JSON value")
    _fail(
        where,
        f"{_name(tp)} is not a supported type (str, int, float, bool, None, Literal, "
        "Enum, list/tuple/Sequence, TypedDict, frozen dataclass, union, Annotated, JsonValue)",
    )


def _check_disjoint(members: list[object], nodes: list[Node], where: str) -> None:
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
            _fail(
                where,
                f"{_name(members[i])} | {_name(members[j])} is ambiguous: a JSON "
                f"{example} can match both, but oneOf requires exactly one branch to match; "
                f"{hint}",
            )


def _tag_key(first: Node, second: Node) -> str | None:
    for key, values in first.tags.items():
        other = second.tags.get(key)
        if other is not None and not values & other:
            return key
    return None


def _decoded_default(fld: dataclasses.Field[Any], node: Node) -> Callable[[], Any] | None:
    """How a missing field gets its default as its JSON would decode (deep-frozen lists and
    dicts, floats for float fields, ...), or None when the dataclass may apply it as it is."""
    if fld.default_factory is dataclasses.MISSING and fld.default is dataclasses.MISSING:
        return None
    compiled = compile_json_schema(node.schema, "portable")
    if not isinstance(compiled, Success):  # not reached: a derived node is portable
        return None
    validate = compiled.unwrap().validate
    decode = node.decode

    def as_decoded(default: object) -> object:
        checked = validate(to_plain(default))
        if not isinstance(checked, Success):  # not JSON of the field's type: keep it as it is
            return default
        try:
            return checked.unwrap() if decode is None else decode(checked.unwrap())
        except DecodeProblem:
            return default

    if fld.default_factory is not dataclasses.MISSING:
        factory = fld.default_factory
        return lambda: as_decoded(factory())
    decoded = as_decoded(fld.default)
    return None if decoded is fld.default else lambda: decoded


def _union_tag(nodes: list[Node], where: str) -> tuple[str, dict[object, Node]] | None:
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
    _fail(
        where,
        "the object branches of this union share no required Literal field whose "
        "values tell them apart; add one (a tag) to every branch",
    )


def derive(tp: object) -> Node:
    """Derive the schema node and decoder for a type, or raise SchemaDerivationError."""
    return _Deriver().node(tp, _name(tp))
