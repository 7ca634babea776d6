"""pydantic models as schema types: the model's JSON Schema (its `$ref`s inlined; `schema_of`
checks it under the full profile) and a decoder that validates with the model itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolfx.core.json import describe_value, thaw_json
from toolfx.core.schema._decode import KINDS_ANY, DecodeProblem, Decoder, Node
from toolfx.core.schema._types import fail

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["model_node"]

_REF_PREFIX = "#/$defs/"


def model_node(tp: type[BaseModel], where: str) -> Node:
    """The schema node of a pydantic model, or a SchemaDerivationError naming the model."""
    try:
        raw = tp.model_json_schema()
    except Exception as error:  # pydantic's own refusal (arbitrary types, ...): say which model
        fail(where, f"pydantic gives no JSON Schema for {tp.__name__}: {error}")
    definitions = raw.pop("$defs", {})
    schema = _inlined(raw, definitions, (), where)
    kinds = frozenset({"object"}) if schema.get("type") == "object" else KINDS_ANY
    return Node(schema, _model_decoder(tp), kinds)


def _inlined(node: Any, definitions: Mapping[str, Any], active: tuple[str, ...], where: str) -> Any:
    """The schema with every `#/$defs/...` reference replaced by its definition."""
    if isinstance(node, list):
        return [_inlined(item, definitions, active, where) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if isinstance(reference, str) and reference.startswith(_REF_PREFIX):
        name = reference.removeprefix(_REF_PREFIX)
        if name in active:
            fail(where, f"pydantic model {name} refers to itself; recursive models are refused")
        if name not in definitions:
            fail(where, f"the reference {reference!r} names no definition")
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        target = _inlined(definitions[name], definitions, (*active, name), where)
        return {**target, **_inlined(siblings, definitions, active, where)}
    return {key: _inlined(value, definitions, active, where) for key, value in node.items()}


def _model_decoder(tp: type[BaseModel]) -> Decoder:
    def decode(value: Any) -> Any:
        from pydantic import ValidationError  # noqa: PLC0415 (loaded with the model's class)

        try:
            return tp.model_validate(thaw_json(value))
        except ValidationError as error:
            first = error.errors()[0]
            problem = DecodeProblem(first["msg"], describe_value(first.get("input")))
            problem.segments.extend(reversed(first["loc"]))
            raise problem from None

    return decode
