"""Schemas from types: one Python declaration gives the JSON Schema, the validator and the decoder.

`schema_of(T)` derives a JSON Schema inside the portable subset from a type, checks it once
(its validator is compiled on first use), and returns a `ValueSchema[T]` whose `validate` checks
JSON and hands back a value of type T.
Supported: str, int, float, bool, None, Literal, Enum, NewType, list[T], tuple[T, ...],
Sequence[T], TypedDict (Required/NotRequired; closed), frozen dataclasses, unions (oneOf, which
must be unambiguous), `Annotated[T, "description"]`, `JsonValue` and `dict[str, JsonValue]`; and
pydantic models when pydantic is installed (their own JSON Schema, checked under the full
profile; validated by the model; instances dumped as JSON). Anything else fails when the schema
is derived, with a `SchemaDerivationError` naming the field.

`raw_schema(schema)` is the other door, for schemas that arrive as JSON (MCP, plugins): it checks
the schema against a profile, reporting every problem at once, and gives a `ValueSchema` of
frozen JSON whose decoding is the identity.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar, cast, final

from returns.result import Failure, Result, Success
from typing_extensions import TypeForm

from toolfx.core.json import INT_BOUND, NEGATIVE_INT_BOUND, FrozenDict, FrozenJson, is_frozen_json
from toolfx.core.jsonschema import (
    CompiledSchema,
    JsonSchemaError,
    Profile,
    ValidationFailure,
    compile_json_schema,
)
from toolfx.core.schema._decode import DecodeProblem, Node, to_plain
from toolfx.core.schema._derive import derive
from toolfx.core.schema._types import SchemaDerivationError

__all__ = ["ValueSchema", "raw_schema", "schema_of"]


T = TypeVar("T")


@final
@dataclass(frozen=True, slots=True, init=False, eq=False, repr=False)
class ValueSchema(Generic[T]):
    """A type's JSON Schema with a cached validator that decodes valid JSON into the type.

    Frozen: every tool, call and cache shares one, so nothing can swap its validator.
    """

    type_form: object
    json_schema: FrozenJson
    compiled: CompiledSchema
    _decode: Callable[[Any], Any] | None
    _bare: type | None
    _is_valid: Callable[[FrozenJson], bool] | None
    """The validator's own method (no call of ours on the hot path), once the first validation
    has compiled it."""

    def __init__(self, type_form: object, node: Node, compiled: CompiledSchema) -> None:
        store = object.__setattr__
        store(self, "type_form", type_form)
        store(self, "json_schema", compiled.checked.schema)
        store(self, "compiled", compiled)
        store(self, "_decode", node.decode)
        store(self, "_is_valid", None)
        bare = _BARE_TYPES.get(node.schema.get("type")) if len(node.schema) == 1 else None
        store(self, "_bare", bare)

    def __repr__(self) -> str:
        return f"ValueSchema({_type_name(self.type_form)})"

    def validate(self, value: object) -> Result[T, ValidationFailure]:
        """Check any value against the schema and decode it into T, or list every problem."""
        outcome = self.decode_or_failure(value)
        if isinstance(outcome, ValidationFailure):
            return Failure(outcome)
        return Success(outcome[1])

    def encode(self, value: T) -> Result[FrozenJson, ValidationFailure]:
        """Turn a value of type T into frozen JSON, checked against the schema."""
        return self.compiled.validate(to_plain(value))

    def decode_or_failure(self, value: object) -> tuple[FrozenJson, T] | ValidationFailure:
        """The frozen JSON and its decoded T, or every problem: a plain value for hot paths."""
        if type(value) is self._bare and _plainly_valid(value):
            return (value, value)  # type: ignore[return-value]
        if type(value) is FrozenDict or is_frozen_json(value):  # arguments: no call for them
            frozen: FrozenJson = value  # type: ignore[assignment]  # (no cast call: hot path)
            is_valid = self._is_valid
            if is_valid is None:  # the first validation: the validator is compiled now
                is_valid = self.compiled.is_valid_frozen
                object.__setattr__(self, "_is_valid", is_valid)
            if not is_valid(frozen):
                return self.compiled.failure_for(frozen)
        else:
            validated = self.compiled.validate(value)  # snapshots first: non-JSON is an issue
            if isinstance(validated, Failure):
                return cast(ValidationFailure, validated.failure())
            frozen = validated.unwrap()
        decode = self._decode
        if decode is None:  # identity decode: the JSON already is a T
            return (frozen, frozen)  # type: ignore[return-value]
        try:
            return (frozen, decode(frozen))
        except DecodeProblem as problem:
            return ValidationFailure((problem.issue(),))

    def round_trip_or_failure(self, value: T) -> tuple[FrozenJson, T] | ValidationFailure:
        """Encode a typed value, check it once and decode it back (scalars skip the encoding)."""
        kind = type(value)
        if kind is self._bare and (  # `_plainly_valid`, inline: a body's int, once per call
            NEGATIVE_INT_BOUND < value < INT_BOUND  # type: ignore[operator]
            if kind is int
            else _plainly_valid(value)
        ):
            return (value, value)  # type: ignore[return-value]
        return self.decode_or_failure(value if is_frozen_json(value) else to_plain(value))


_BARE_TYPES: Final[dict[object, type]] = {"integer": int, "string": str, "boolean": bool}
"""Bare scalar schemas whose Python type alone decides validity (see `_plainly_valid`)."""


def _plainly_valid(value: object) -> bool:
    """Whether a bool, int or str is valid JSON of its kind without asking the validator."""
    if type(value) is str:
        return value.isascii()  # other text may hold lone surrogates: the full check decides
    return type(value) is bool or NEGATIVE_INT_BOUND < value < INT_BOUND  # type: ignore[operator]


_CACHE: Final[dict[object, ValueSchema[Any]]] = {}


def schema_of(type_form: TypeForm[T]) -> ValueSchema[T]:
    """Derive (once per type) the schema, validator and decoder for a type."""
    try:
        cached = _CACHE.get(type_form)
    except TypeError:  # an unhashable type form: derive without caching
        return _build(type_form)
    if cached is None:
        cached = _CACHE[type_form] = _build(type_form)
    return cached


def _build(type_form: object) -> ValueSchema[Any]:
    node, profile = derive(type_form)
    compiled = compile_json_schema(node.schema, profile)
    if not isinstance(compiled, Success):
        raise SchemaDerivationError(
            _type_name(type_form),
            f"the derived schema is outside the {profile} profile: {compiled.failure()}",
        )
    return ValueSchema(type_form, node, compiled.unwrap())


@final
class _RawForm:
    """The type form of a raw schema: frozen JSON, named by its profile in messages."""

    __slots__ = ("profile",)

    def __init__(self, profile: Profile) -> None:
        self.profile = profile

    def __repr__(self) -> str:
        return f"raw JSON Schema ({self.profile} profile)"


def raw_schema(
    schema: object, profile: Profile = "full"
) -> Result[ValueSchema[FrozenJson], JsonSchemaError]:
    """Check a raw JSON Schema against `profile` and give it as a schema of frozen JSON values."""
    return compile_json_schema(schema, profile).map(_raw_value_schema)


def _raw_value_schema(compiled: CompiledSchema) -> ValueSchema[FrozenJson]:
    root = compiled.checked.schema
    node = Node(root if isinstance(root, dict) else {})  # a boolean root: nothing to shortcut
    return ValueSchema(_RawForm(compiled.checked.profile), node, compiled)


def _type_name(type_form: object) -> str:
    return getattr(type_form, "__name__", None) or repr(type_form)
