"""Properties of the provider rewrites over raw schemas (any keyword, valid or malformed, local
`$ref`s that resolve, dangle or recurse), not only derived ones.

The OpenAI strict rewrite counts a schema against `OpenAILimits` only when its own tallies
cannot show it far inside them: whatever the limits, it gives what counting every schema gives.
A problem met again (a place and a reason) is the same object, equal to one made fresh, unless
its pointer and reason are long (a hostile schema's names and values are not kept past it).
"""

from __future__ import annotations

from typing import Any, Final

from hypothesis import given
from hypothesis import strategies as st

from toolfx.core.json import FrozenJson, JsonValue, json_pointer, snapshot_json, thaw_json
from toolfx.core.jsonschema import SchemaProblem
from toolfx.core.providers._gemini import _Gemini
from toolfx.core.providers._openai import (
    OPENAI_LIMITS,
    OpenAILimits,
    _check_limits,
    _Strict,
    strict_parameters,
)
from toolfx.core.providers._schema import _MADE_LONGEST, _MADE_MOST, _made, problem_at

NAMES: Final = st.sampled_from(["a", "b", "c/d", "e~f", "node"])
TYPES: Final = st.sampled_from(
    ["object", "array", "string", "integer", "number", "boolean", "null", "x"]
)
SCALARS: Final = (
    st.none() | st.booleans() | st.integers(-2, 2) | st.just(1.5) | st.sampled_from(["a", "b"])
)
REFERENCES: Final = st.sampled_from(
    ["#", "#/$defs/a", "#/$defs/node", "#/$defs/gone", "#/properties/a", "#/$defs/c~1d", "x.json"]
)


def _keywords(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """An object schema of up to five keywords, each with a value of its kind or a stray one."""
    values: dict[str, st.SearchStrategy[Any]] = {
        "type": TYPES | st.lists(TYPES, max_size=3),
        "properties": st.dictionaries(NAMES, children, max_size=3),
        "required": st.lists(NAMES, max_size=3) | st.just("a"),
        "additionalProperties": st.booleans() | children,
        "items": children,
        "anyOf": st.lists(children, max_size=3) | children,
        "oneOf": st.lists(children, max_size=3),
        "$defs": st.dictionaries(NAMES, children, max_size=2),
        "$ref": REFERENCES,
        "enum": st.lists(SCALARS, max_size=4) | SCALARS,
        "const": SCALARS,
        "format": st.sampled_from(["date-time", "email", "uri"]),
        "description": st.sampled_from(["said", 3]),
        "title": st.just("named"),
        "default": SCALARS,
        "minimum": st.integers(0, 2),
        "maxLength": st.integers(0, 2),
        "allOf": st.lists(children, max_size=2),
        "examples": st.lists(SCALARS, max_size=2),
    }
    return st.lists(st.sampled_from(sorted(values)), max_size=5, unique=True).flatmap(
        lambda keys: st.fixed_dictionaries({key: values[key] for key in keys})
    )


raw_schemas: Final = st.recursive(
    st.fixed_dictionaries({"type": TYPES}) | st.booleans() | st.just({}) | SCALARS,
    _keywords,
    max_leaves=12,
)
"""Any subschema the rewrites may meet."""

parameter_schemas: Final = (
    st.tuples(
        _keywords(raw_schemas),
        st.dictionaries(NAMES, raw_schemas, max_size=4),
        st.dictionaries(NAMES, raw_schemas, max_size=2),
    ).map(lambda parts: {**parts[0], "type": "object", "properties": parts[1], "$defs": parts[2]})
    | raw_schemas
)
"""A tool's parameter schema: mostly an object root with properties and `$defs`."""

limits: Final = st.builds(
    OpenAILimits, st.integers(0, 8), st.integers(0, 3), st.integers(0, 6)
) | st.just(OPENAI_LIMITS)


def counted_always(
    schema: FrozenJson, limits: OpenAILimits
) -> tuple[dict[str, JsonValue] | None, list[SchemaProblem]]:
    """`strict_parameters` as it was before its tallies: every strict schema counted."""
    if not (isinstance(schema, dict) and schema.get("type") == "object"):
        return strict_parameters(schema, limits)  # refused before any walk
    walk = _Strict(schema)
    out = walk.node(schema, ())
    _check_limits(out, limits, walk.out)
    return (None, walk.out) if walk.out else (out, [])


@given(parameter_schemas, limits)
def test_the_strict_rewrite_gives_what_counting_every_schema_gives(
    raw: Any, limits: OpenAILimits
) -> None:
    schema = snapshot_json(raw).unwrap()
    assert strict_parameters(schema, limits) == counted_always(schema, limits)


@given(parameter_schemas)
def test_a_rewrite_gives_for_frozen_schemas_what_its_walk_gives_for_plain_ones(raw: Any) -> None:
    """A frozen `{"type": <scalar>}` is rewritten without the walk (`lone_scalar_type`); a plain
    dict always takes the walk: the two agree on every schema, outcome and problems alike."""
    frozen = snapshot_json(raw).unwrap()
    plain = thaw_json(frozen)
    for rewrite in (_Strict, _Gemini):
        fast, walked = rewrite(frozen), rewrite(plain)
        assert fast.node(frozen, ()) == walked.node(plain, ())
        assert fast.out == walked.out


@given(
    st.lists(NAMES | st.integers(0, 3) | st.text(max_size=300), max_size=4).map(tuple),
    st.sampled_from(["x", "y"]) | st.text(max_size=300),
)
def test_a_problem_made_once_equals_one_made_fresh(at: tuple[str | int, ...], reason: str) -> None:
    made = problem_at(at, reason)
    assert made == SchemaProblem(json_pointer(at), reason)
    again = problem_at(at, reason)
    short = len(made.path) + len(reason) <= _MADE_LONGEST
    assert (again is made) == short  # a long name or value is not kept past its schema
    assert len(_made) <= _MADE_MOST
