"""Properties of compiling on first use: a portable schema accepted now, jsonschema-rs compiles.

A portable schema's validator is compiled when it first validates (see toolfx.core.jsonschema),
so the snapshot and the portable check must refuse, when the schema is given, every schema
jsonschema-rs would refuse: else a tool would be accepted and fail on its first call. Random
schemas (portable, mutated, any JSON, and portable ones with hostile text, numbers, names and
nesting put in) and types (derivable ones, and TypedDicts with hostile names and Literal values)
are either refused with every problem at a place inside the schema, or compiled by jsonschema-rs
itself (uncached, here and now).
"""

from __future__ import annotations

import copy
import math
from typing import Any, Final, Literal, TypedDict

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure

from tests.properties.test_jsonschema_properties import (
    mutated_schemas,
    portable_schemas,
    resolves,
    schema_like,
    schema_nodes,
)
from tests.properties.test_schema_properties import fresh, type_forms
from tests.stubs_strategies import hostile_text
from toolfx.core.json import INT_BOUND, NEGATIVE_INT_BOUND
from toolfx.core.jsonschema import CompiledSchema, _check, compile_json_schema
from toolfx.core.schema import SchemaDerivationError, ValueSchema, schema_of

_LITERAL: Final[Any] = Literal
_TYPED_DICT: Final[Any] = TypedDict  # called with names made at run time (mypy wants literals)

HOSTILE_NUMBERS: Final = (
    INT_BOUND - 1,
    INT_BOUND,
    NEGATIVE_INT_BOUND + 1,
    2**64,
    -(2**63) - 1,
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    5e-324,
    -0.0,
)
"""Integers at and past the digits bound and past 64 bits; floats JSON cannot hold or barely can."""

hostile_strings = st.one_of(hostile_text, st.sampled_from(("\ud800", "a\udfff", "\x00", "\u2028")))
"""Any text, with lone surrogates (which jsonschema-rs cannot read), NUL and separators."""

hostile_scalars = st.one_of(hostile_strings, st.sampled_from(HOSTILE_NUMBERS))


@st.composite
def hostile_schemas(draw: st.DrawFn) -> Any:
    """A portable schema with hostile text and numbers put in (as values, enum members, property
    names, descriptions), maybe under a chain of nodes around the nesting limit."""
    schema = copy.deepcopy(draw(portable_schemas))
    for _ in range(draw(st.integers(1, 3))):
        node = draw(st.sampled_from(schema_nodes(schema)))
        where = draw(st.sampled_from(("const", "enum", "properties", "required", "description")))
        if where == "properties":
            node.update(type="object", properties={draw(hostile_strings): {}})
        elif where == "required":
            node[where] = draw(st.lists(hostile_scalars, min_size=1, max_size=3))
        elif where == "description":
            node[where] = draw(hostile_scalars)
        else:  # a leaf of its own, so that no type of the node's refuses the value
            node.clear()
            node[where] = draw(hostile_scalars if where == "const" else st.lists(hostile_scalars))
    for _ in range(draw(st.sampled_from((0, 0, 0, 100, 124, 126, 127, 128)))):
        schema = {"type": "array", "items": schema}
    return schema


def compiles_now(compiled: CompiledSchema) -> None:
    """Compile the validator jsonschema-rs makes for a compiled schema, past every cache."""
    _check._validator_for.__wrapped__(_check._view_text(compiled.checked))


@given(st.one_of(portable_schemas, mutated_schemas(), schema_like, hostile_schemas()))
def test_a_schema_the_portable_check_accepts_compiles_and_one_it_refuses_names_the_place(
    schema: Any,
) -> None:
    result = compile_json_schema(schema, "portable")
    if isinstance(result, Failure):
        problems = result.failure().problems
        assert problems
        assert all(resolves(schema, problem.path) for problem in problems), problems
        return
    compiles_now(result.unwrap())


@given(type_forms)
def test_a_derived_schema_compiles_on_first_use(tp: Any) -> None:
    compiles_now(schema_of(tp).compiled)


@given(
    st.lists(hostile_strings, min_size=1, max_size=3, unique=True),
    st.lists(st.one_of(hostile_strings, st.integers(), st.sampled_from(HOSTILE_NUMBERS[:5]))),
)
def test_a_type_with_hostile_names_or_literals_is_refused_when_defined_or_compiles(
    names: list[str], literals: list[object]
) -> None:
    tp = _TYPED_DICT(fresh("Hostile"), dict.fromkeys(names, _LITERAL[(*literals, "x")]))
    derived = derived_or_refusal(tp)
    if isinstance(derived, SchemaDerivationError):
        assert derived.where == tp.__name__
        assert "- /properties" in derived.reason  # the place in its schema
    else:
        compiles_now(derived.compiled)


def derived_or_refusal(tp: Any) -> ValueSchema[Any] | SchemaDerivationError:
    """The schema of a type, or why it cannot have one."""
    try:
        return schema_of(tp)
    except SchemaDerivationError as error:
        return error
