"""Properties of the portable profile: jsonschema-rs enforces exactly the subset's rules.

`reference_valid` below is an independent, pure-Python reading of the spec's enforced subset. For
random portable schemas and random (or nearly matching) instances, the compiled validator must
agree with it. Schemas with random extra keywords or malformed values must either be rejected by
the checker or, when accepted, still agree with the reference: so the portable profile never
accepts a schema that jsonschema-rs would enforce differently from the subset's rules.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final, Protocol, TypeVar

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from returns.pipeline import is_successful
from returns.result import Failure

from toolfx.core.json import FrozenJson, snapshot_json
from toolfx.core.jsonschema import check_json_schema, compile_json_schema
from toolfx.core.jsonschema._full import FULL_KEYWORDS
from toolfx.core.jsonschema._portable import validation_view

T = TypeVar("T")
TYPES: Final = ("object", "array", "string", "number", "integer", "boolean", "null")
KEYS: Final = ("a", "b", "kind", "x")

# --- an independent reference for the portable subset -------------------------------------------


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def type_matches(kind: str, value: object) -> bool:
    """Whether a JSON value has one of the seven JSON Schema types (integers: integral numbers)."""
    if kind == "object":
        return isinstance(value, Mapping)
    if kind == "array":
        return isinstance(value, Sequence) and not isinstance(value, str)
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return _is_number(value)
    if kind == "integer":
        if isinstance(value, float):
            return value.is_integer()
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    return value is None


def scalar_equal(left: object, right: object) -> bool:
    """JSON equality where one side is a scalar: booleans are not numbers; 1 equals 1.0."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if _is_number(left) and _is_number(right):
        return left == right
    if isinstance(left, str) and isinstance(right, str):
        return left == right
    return left is None and right is None


def reference_valid(schema: Mapping[str, Any], value: object) -> bool:
    """The spec's rules for the enforced subset, written without jsonschema-rs."""
    kind = schema.get("type")
    if kind is not None and not type_matches(kind, value):
        return False
    if "enum" in schema and not any(scalar_equal(value, option) for option in schema["enum"]):
        return False
    if "const" in schema and not scalar_equal(value, schema["const"]):
        return False
    if "oneOf" in schema and sum(reference_valid(b, value) for b in schema["oneOf"]) != 1:
        return False
    if isinstance(value, Mapping):
        properties = schema.get("properties", {})
        for key, sub in properties.items():
            if key in value and not reference_valid(sub, value[key]):
                return False
        if any(name not in value for name in schema.get("required", ())):
            return False
        if schema.get("additionalProperties") is False and any(k not in properties for k in value):
            return False
    if isinstance(value, Sequence) and not isinstance(value, str) and "items" in schema:
        return all(reference_valid(schema["items"], item) for item in value)
    return True


# --- strategies ---------------------------------------------------------------------------------

EDGE_NUMBERS: Final = (0, -0.0, 1, 1.0, 2**53, 2**53 + 1, float(2**53), 2**64, float(2**64), 0.1)
numbers = st.one_of(
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(EDGE_NUMBERS),
)
strings = st.one_of(st.sampled_from(("", "a", "kind", "é", "e\u0301")), st.text(max_size=4))
scalars = st.one_of(st.none(), st.booleans(), numbers, strings)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=2)), inner, max_size=3),
    ),
    max_leaves=8,
)


def scalar_of(kind: str) -> st.SearchStrategy[Any]:
    """Scalars of a type (or that a type accepts)."""
    return {
        "string": strings,
        "number": numbers,
        "integer": st.one_of(st.integers(), st.sampled_from((2.0, -0.0, 1e20))),
        "boolean": st.booleans(),
        "null": st.none(),
    }[kind]


annotation_keywords = st.fixed_dictionaries(
    {},
    optional={
        "description": st.text(max_size=3),
        "title": st.text(max_size=3),
        "default": json_values,
        "examples": json_values,
    },
)


@st.composite
def leaf_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """Nodes without children: any, a type, a typed enum/const, an untyped enum/const."""
    node: dict[str, Any] = draw(annotation_keywords)
    shape = draw(st.sampled_from(("any", "type", "typed enum", "typed const", "enum", "const")))
    scalar_kind = draw(st.sampled_from(("string", "number", "integer", "boolean", "null")))
    if shape == "type":
        node["type"] = draw(st.sampled_from(TYPES))
    elif shape.startswith("typed"):
        node["type"] = scalar_kind
    if shape.endswith("enum"):
        node["enum"] = draw(
            st.lists(
                scalar_of(scalar_kind) if "typed" in shape else scalars, min_size=1, max_size=4
            )
        )
    elif shape.endswith("const"):
        node["const"] = draw(scalar_of(scalar_kind) if "typed" in shape else scalars)
    return node


def _extend(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    @st.composite
    def objects(draw: st.DrawFn) -> dict[str, Any]:
        node: dict[str, Any] = {"type": "object", **draw(annotation_keywords)}
        properties = draw(st.dictionaries(st.sampled_from(KEYS), children, max_size=3))
        declare_empty, with_required = draw(st.booleans()), draw(st.booleans())
        if properties or declare_empty:
            node["properties"] = properties
        if properties and with_required:
            node["required"] = draw(st.lists(st.sampled_from(sorted(properties)), unique=True))
        if draw(st.booleans()):
            node["additionalProperties"] = draw(st.booleans())
        return node

    @st.composite
    def arrays(draw: st.DrawFn) -> dict[str, Any]:
        node: dict[str, Any] = {"type": "array"}
        if draw(st.booleans()):
            node["items"] = draw(children)
        return node

    @st.composite
    def one_ofs(draw: st.DrawFn) -> dict[str, Any]:
        node: dict[str, Any] = {"oneOf": draw(st.lists(children, min_size=2, max_size=3))}
        if draw(st.booleans()):
            node["type"] = draw(st.sampled_from(TYPES))
        return node

    return st.one_of(objects(), arrays(), one_ofs())


portable_schemas = st.recursive(leaf_schemas(), _extend, max_leaves=6)


class Draw(Protocol):
    """Anything that draws from a strategy: a composite's draw or `DataObject.draw`."""

    def __call__(self, strategy: st.SearchStrategy[T], /) -> T: ...


def near(draw: Draw, schema: object, depth: int = 0) -> Any:
    """A value built to (nearly) match a schema, with random slips along the way."""
    if depth > 4 or not isinstance(schema, Mapping) or draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    one_of = schema.get("oneOf")
    if isinstance(one_of, list) and one_of:
        return near(draw, draw(st.sampled_from(one_of)), depth + 1)
    for keyword in ("enum", "const"):
        options = schema.get(keyword)
        if keyword in schema:
            choices = options if keyword == "enum" and isinstance(options, list) else [options]
            if choices:
                return draw(st.sampled_from(choices))
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        chosen = (
            draw(st.lists(st.sampled_from(sorted(properties)), unique=True)) if properties else []
        )
        required = schema.get("required")
        names = set(chosen) | set(required if isinstance(required, list) else [])
        value = {
            n: near(draw, properties.get(n, {}), depth + 1) for n in names if isinstance(n, str)
        }
        if draw(st.integers(0, 4)) == 0:
            value[draw(st.sampled_from(KEYS))] = draw(json_values)
        return value
    if kind == "array":
        return [
            near(draw, schema.get("items", {}), depth + 1) for _ in range(draw(st.integers(0, 3)))
        ]
    if kind in ("string", "number", "integer", "boolean", "null"):
        return draw(scalar_of(kind))
    return draw(json_values)


def assert_agrees(schema: dict[str, Any], value: Any) -> None:
    """The compiled validator and the reference give the same verdict; issues point into value."""
    compiled = compile_json_schema(schema).unwrap()
    result = compiled.validate(value)
    assert is_successful(result) == reference_valid(schema, value), (schema, value, result)
    if isinstance(result, Failure):
        frozen = snapshot_json(value).unwrap()
        for issue in result.failure().issues:
            assert resolves(frozen, issue.path), (issue, value)


def resolves(value: FrozenJson, pointer: str) -> bool:
    """Whether a JSON pointer names a place inside a value."""
    if pointer and not pointer.startswith("/"):
        return False
    node: object = value
    for raw in pointer.split("/")[1:]:
        segment = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and segment in node:
            node = node[segment]
        elif isinstance(node, list) and segment.isdigit() and int(segment) < len(node):
            node = node[int(segment)]
        else:
            return False
    return True


# --- properties ---------------------------------------------------------------------------------


@given(portable_schemas)
def test_generated_schemas_are_portable(schema: dict[str, Any]) -> None:
    assert is_successful(check_json_schema(schema)), check_json_schema(schema)


@given(portable_schemas, json_values)
def test_validation_agrees_with_the_reference_on_random_values(
    schema: dict[str, Any], value: Any
) -> None:
    assert_agrees(schema, value)


@given(st.data())
def test_validation_agrees_with_the_reference_on_nearly_matching_values(
    data: st.DataObject,
) -> None:
    schema = data.draw(portable_schemas)
    assert_agrees(schema, near(data.draw, schema))


def schema_nodes(node: Any) -> list[dict[str, Any]]:
    """Every schema object of a generated schema: the node and its subschemas."""
    if not isinstance(node, dict):
        return []
    found = [node]
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            found.extend(n for sub in value.values() for n in schema_nodes(sub))
        elif key == "oneOf" and isinstance(value, list):
            found.extend(n for sub in value for n in schema_nodes(sub))
        elif key == "items":
            found.extend(schema_nodes(value))
    return found


small = st.integers(-2, 3)
small_schemas = st.recursive(leaf_schemas(), _extend, max_leaves=3)
ENFORCING: Final[dict[str, st.SearchStrategy[Any]]] = {
    "minimum": small,
    "maximum": small,
    "exclusiveMinimum": small,
    "exclusiveMaximum": small,
    "multipleOf": st.sampled_from((2, 0.5, 3)),
    "minLength": st.integers(1, 3),
    "maxLength": st.integers(0, 2),
    "pattern": st.sampled_from(("^a", "b", "^$")),
    "format": st.sampled_from(("email", "date", "ipv4")),
    "minItems": st.integers(1, 2),
    "maxItems": st.integers(0, 1),
    "uniqueItems": st.just(True),
    "contains": small_schemas,
    "prefixItems": st.lists(small_schemas, min_size=1, max_size=2),
    "minProperties": st.integers(1, 2),
    "maxProperties": st.integers(0, 1),
    "patternProperties": st.dictionaries(st.sampled_from(("^a", "x")), small_schemas, min_size=1),
    "propertyNames": small_schemas,
    "dependentRequired": st.dictionaries(
        st.sampled_from(KEYS), st.lists(st.sampled_from(KEYS), unique=True, max_size=2), min_size=1
    ),
    "anyOf": st.lists(small_schemas, min_size=1, max_size=3),
    "allOf": st.lists(small_schemas, min_size=1, max_size=2),
    "oneOf": st.lists(small_schemas, min_size=1, max_size=1),
    "not": small_schemas,
    "if": small_schemas,
    "$ref": st.just("#"),
    "unevaluatedProperties": st.just(False),
    "type": st.lists(st.sampled_from(TYPES), unique=True, min_size=1, max_size=3),
    "additionalProperties": small_schemas,
    "items": st.booleans(),
    "properties": st.dictionaries(st.sampled_from(KEYS), st.booleans(), min_size=1),
    "const": json_values,
    "enum": st.lists(json_values, min_size=1, max_size=3),
}
"""Well-formed Draft 2020-12 values that change validation, outside the subset's rules."""


@st.composite
def with_keyword(draw: st.DrawFn, keyword: str) -> Any:
    """A portable schema whose nodes get a keyword (or value) the validator would enforce.

    The keyword goes on every node, so that it meets a node where it makes a difference.
    """
    schema = copy.deepcopy(draw(small_schemas))
    value = draw(ENFORCING[keyword])
    for node in schema_nodes(schema):
        node[keyword] = value
    return schema


@pytest.mark.parametrize("keyword", sorted(ENFORCING))
@settings(max_examples=max(10, settings().max_examples // 4))  # a quarter of the profile each
@given(data=st.data())
def test_an_enforcing_keyword_is_rejected_or_enforced_as_the_subset_says(
    keyword: str, data: st.DataObject
) -> None:
    schema = data.draw(with_keyword(keyword))
    if isinstance(check_json_schema(schema), Failure):
        return
    for _ in range(8):
        assert_agrees(schema, near(data.draw, schema))
    assert_agrees(schema, data.draw(json_values))


KEYWORD_POOL: Final = (*sorted(FULL_KEYWORDS), "foo", "nullable")

keyword_values = st.one_of(
    st.integers(0, 3),
    numbers,
    st.booleans(),
    st.sampled_from(("^a", "email", "#", "#/properties", "a")),
    st.sampled_from(TYPES),
    st.lists(st.sampled_from(TYPES), min_size=1, max_size=2),
    portable_schemas,
    st.lists(portable_schemas, min_size=1, max_size=2),
    st.lists(st.sampled_from(KEYS), max_size=2),
    st.lists(scalars, min_size=1, max_size=3),
    st.dictionaries(st.sampled_from(KEYS), portable_schemas, max_size=2),
    json_values,
)
"""Values that are often well-formed for some keyword, so the validator would enforce them."""


@st.composite
def mutated_schemas(draw: st.DrawFn) -> Any:
    """A portable schema with keywords added or values swapped, at random nodes."""
    schema = copy.deepcopy(draw(portable_schemas))
    for _ in range(draw(st.integers(1, 3))):
        node = draw(st.sampled_from(schema_nodes(schema)))
        if node and draw(st.booleans()):
            node[draw(st.sampled_from(sorted(node)))] = draw(keyword_values)
        else:
            node[draw(st.sampled_from(KEYWORD_POOL))] = draw(keyword_values)
    return schema


@given(st.data())
def test_a_malformed_schema_is_rejected_or_enforced_as_the_subset_says(data: st.DataObject) -> None:
    schema = data.draw(mutated_schemas())
    checked = check_json_schema(schema)
    if isinstance(checked, Failure):
        assert checked.failure().problems
        return
    for _ in range(4):
        assert_agrees(schema, near(data.draw, schema))
    assert_agrees(schema, data.draw(json_values))


schema_like = st.one_of(
    json_values, st.dictionaries(st.sampled_from(KEYWORD_POOL), keyword_values, max_size=4)
)


@given(schema_like, json_values)
def test_checking_any_json_as_a_schema_never_raises(schema: Any, value: Any) -> None:
    for profile in ("portable", "full"):
        result = compile_json_schema(schema, profile)
        if is_successful(result):
            result.unwrap().validate(value)
        else:
            assert all(problem.reason for problem in result.failure().problems)


def canonical(schema: object) -> str:
    """A schema's canonical JSON text: sorted keys, no spaces (1 and 1.0 stay apart)."""
    return json.dumps(schema, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def exact(schema: object) -> str:
    """A schema's JSON text in its own key order, no spaces."""
    return json.dumps(schema, ensure_ascii=False, separators=(",", ":"))


@st.composite
def schema_pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two portable schemas: often the same one (keys in another order), one keyword apart, or
    only an annotation apart; otherwise unrelated."""
    first = draw(portable_schemas)
    how = draw(st.sampled_from(("same", "keyword", "annotation", "other")))
    if how == "other":
        return first, draw(portable_schemas)
    second = dict(reversed(copy.deepcopy(first).items()))
    if how == "keyword":
        second["type"] = draw(st.sampled_from(TYPES))
        assume(is_successful(check_json_schema(second)))  # a type its keywords still fit
    elif how == "annotation":
        second["description"] = draw(st.text(max_size=3))
    return first, second


@given(schema_pairs())
def test_schemas_share_a_compiled_schema_exactly_when_their_text_is_equal(
    pair: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    """Key order included (each tool shows its own), while validators ignore it."""
    first, second = (compile_json_schema(schema).unwrap() for schema in pair)
    assert (first is second) == (exact(pair[0]) == exact(pair[1]))
    views = (validation_view(first.checked.schema), validation_view(second.checked.schema))
    assert (first.validator is second.validator) == (canonical(views[0]) == canonical(views[1]))
    assert first.checked.schema == pair[0]
    assert second.checked.schema == pair[1]
