"""Derivation of JSON Schema nodes and decoders from Python types (used by `schema_of`)."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Literal, Union, get_args, get_origin

import typing_extensions
from returns.result import Success
from typing_extensions import is_typeddict

from toolfx.core.json import JsonValue
from toolfx.core.jsonschema import Profile, compile_json_schema
from toolfx.core.schema._choices import (
    check_disjoint,
    enum_node,
    is_json_scalar,
    is_literal,
    literal_node,
    literal_values,
    open_object_node,
    union_tag,
    unsupported,
)
from toolfx.core.schema._decode import (
    DecodeProblem,
    Decoder,
    Node,
    array_decoder,
    dataclass_decoder,
    decode_float,
    decode_int,
    to_plain,
    typed_dict_decoder,
    union_decoder,
)
from toolfx.core.schema._pydantic import is_model_class
from toolfx.core.schema._pydantic_schema import model_node
from toolfx.core.schema._types import (
    add_doc,
    allows_extra_keys,
    fail,
    type_hints,
    type_name,
    typed_dict_fields,
)

__all__ = ["derive"]


# The nodes of JSON's own types, shared: a node's schema is never changed once made (a parent
# that adds to one, like a description, copies it).
_ANY: Final = Node({})
_STRING: Final = Node({"type": "string"}, kinds=frozenset({"string"}))
_BOOLEAN: Final = Node({"type": "boolean"}, kinds=frozenset({"boolean"}))
_INTEGER: Final = Node({"type": "integer"}, decode_int, frozenset({"integer"}))
_NUMBER: Final = Node({"type": "number"}, decode_float, frozenset({"integer", "number"}))
_NULL: Final = Node({"type": "null"}, kinds=frozenset({"null"}))


class _Deriver:
    """One derivation: remembers the classes being derived to catch recursive types."""

    def __init__(self) -> None:
        self.active: list[object] = []
        self.profile: Profile = "portable"  # full once a pydantic model's schema is inside

    def node(self, tp: object, where: str) -> Node:
        if tp is JsonValue:
            return _ANY
        if tp is str:
            return _STRING
        if tp is bool:
            return _BOOLEAN
        if tp is int:
            return _INTEGER
        if tp is float:
            return _NUMBER
        if tp is None or tp is type(None):
            return _NULL
        if isinstance(tp, typing.NewType):
            return self.node(tp.__supertype__, where)
        origin = get_origin(tp)
        if origin is typing.Annotated or origin is typing_extensions.Annotated:
            return self.annotated(tp, where)
        if origin is Literal or origin is typing_extensions.Literal:
            return literal_node(get_args(tp), where)
        if origin is Union or origin is types.UnionType:
            return self.union(get_args(tp), where)
        if origin in (list, tuple, Sequence, typing.Sequence):
            return self.array(tp, origin, where)
        if origin in (dict, Mapping):
            return open_object_node(tp, where)
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return enum_node(tp, where)
        if is_typeddict(tp) and isinstance(tp, type):
            return self.guarded(tp, where, self.typed_dict)
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            return self.guarded(tp, where, self.dataclass)
        if is_model_class(tp):
            self.profile = "full"
            return model_node(tp, where)
        return unsupported(tp, where)

    def guarded(self, tp: type, where: str, derive_class: Callable[[type, str], Node]) -> Node:
        if tp in self.active:
            fail(
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
            fail(
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
            fail(
                where,
                f"{tp!r} is a fixed-length tuple, which needs prefixItems (outside "
                "the portable subset); use tuple[T, ...]",
            )
        if not args:
            fail(where, f"{type_name(tp)} needs an item type, e.g. list[str]")
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
        check_disjoint(others, nodes, where)
        return Node(
            {"oneOf": [n.schema for n in nodes]},
            union_decoder(nodes, union_tag(nodes, where)),
            frozenset().union(*(n.kinds for n in nodes)),
        )

    def typed_dict(self, tp: type, where: str) -> Node:
        hints, required_names = typed_dict_fields(tp, where)
        properties: dict[str, Any] = {}
        decoders: list[tuple[str, Decoder]] = []
        tags: dict[str, frozenset[object]] = {}
        for key, hint in hints.items():
            node = self.node(hint, f"{where}.{key}")
            properties[key] = node.schema
            if node.decode is not None:
                decoders.append((key, node.decode))
            if key in required_names and is_literal(node.schema):
                tags[key] = literal_values(node.schema)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        required = [key for key in hints if key in required_names]
        if required:
            schema["required"] = required
        schema["additionalProperties"] = allows_extra_keys(tp, where)
        add_doc(schema, tp.__doc__)
        return Node(schema, typed_dict_decoder(decoders), frozenset({"object"}), tags)

    def dataclass(self, tp: type, where: str) -> Node:
        params = getattr(tp, "__dataclass_params__", None)
        if params is None or not params.frozen:
            fail(
                where,
                f"dataclass {tp.__name__} must be frozen (@dataclass(frozen=True)), "
                "so decoded values cannot change",
            )
        hints = type_hints(tp, where)
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
            if has_default and is_json_scalar(fld.default):
                schema = {**schema, "default": fld.default}
            if not has_default and fld.default_factory is dataclasses.MISSING:
                required.append(fld.name)
                if is_literal(schema):
                    tags[fld.name] = literal_values(schema)
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
            add_doc(result, doc)
        return Node(result, dataclass_decoder(tp, fields, defaults), frozenset({"object"}), tags)


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


def derive(tp: object) -> tuple[Node, Profile]:
    """Derive the schema node and decoder for a type, and the profile its schema needs (full
    once it holds a pydantic model's schema), or raise SchemaDerivationError."""
    deriver = _Deriver()
    node = deriver.node(tp, type_name(tp))
    return node, deriver.profile
