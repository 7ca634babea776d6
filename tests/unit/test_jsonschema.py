"""Raw JSON Schemas: the portable and full profiles, compiling, caching, validation messages."""

from __future__ import annotations

import gc
import math
import weakref
from typing import Any

import jsonschema_rs
import pytest
from returns.pipeline import is_successful
from returns.result import Failure, Success

from toolfx.core.json import FrozenDict, FrozenJson, describe_value, render_literal, snapshot_json
from toolfx.core.jsonschema import (
    VALIDATOR_CACHE_SIZE,
    CheckedSchema,
    CompiledSchema,
    JsonSchemaError,
    Profile,
    SchemaProblem,
    ValidationFailure,
    ValidationIssue,
    _check,
    check_json_schema,
    compile_json_schema,
)
from toolfx.core.jsonschema._full import FORMATS, FULL_KEYWORDS
from toolfx.core.jsonschema._portable import portable_problems

HUGE = 10**5000  # more digits than Python converts to text by default


def problems(raw: object, profile: Profile = "portable") -> dict[str, str]:
    """The problems a rejected schema reports, by path."""
    result = check_json_schema(raw, profile)
    assert isinstance(result, Failure), f"expected a rejection, got {result}"
    error = result.failure()
    assert error.problems
    return {problem.path: problem.reason for problem in error.problems}


def accepts(raw: object, profile: Profile = "portable") -> CompiledSchema:
    """The compiled schema of a schema the profile accepts."""
    result = compile_json_schema(raw, profile)
    assert is_successful(result), str(result.failure())
    return result.unwrap()


def issues(raw: object, value: object, profile: Profile = "full") -> list[ValidationIssue]:
    """The issues validating `value` reports."""
    result = accepts(raw, profile).validate(value)
    assert isinstance(result, Failure), f"expected {value!r} to be invalid"
    return list(result.failure().issues)


def only_issue(raw: object, value: object, profile: Profile = "full") -> ValidationIssue:
    """The single issue validating `value` reports."""
    found = issues(raw, value, profile)
    assert len(found) == 1, found
    return found[0]


TOOL: dict[str, Any] = {
    "type": "object",
    "description": "Read a file",
    "properties": {
        "path": {"type": "string", "description": "where"},
        "limit": {"type": "integer", "default": 100},
        "mode": {"enum": ["lines", "bytes"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "target": {
            "oneOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "properties": {"kind": {"const": "file"}},
                    "required": ["kind"],
                    "additionalProperties": False,
                },
            ]
        },
    },
    "required": ["path"],
    "additionalProperties": False,
    "examples": [{"path": "a.txt"}],
}


# --- portable: accepted -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "schema",
    [
        {},
        {"description": "anything", "title": "Any", "default": [1, {"a": None}], "examples": 5},
        TOOL,
        {"type": "integer", "enum": [1, 2.0, -3]},
        {"type": "number", "const": 1.5},
        {"type": "null", "const": None},
        {"enum": ["a", 1, True, None, 2.5]},
        {"oneOf": [{"type": "string"}, {"type": "array", "items": {}}]},
        {"type": "object", "properties": {}, "additionalProperties": True},
        {"type": "object", "properties": {"$ref": {}, "minimum": {}}, "required": ["$ref"]},
    ],
)
def test_portable_accepts_the_subset(schema: object) -> None:
    checked = check_json_schema(schema).unwrap()
    assert checked.profile == "portable"
    assert checked.schema == schema
    accepts(schema)


def test_the_checked_schema_is_a_deep_frozen_copy() -> None:
    raw: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}}
    checked = check_json_schema(raw).unwrap()
    raw["properties"]["a"]["type"] = "integer"
    assert isinstance(checked.schema, FrozenDict)
    assert checked.schema == {"type": "object", "properties": {"a": {"type": "string"}}}
    with pytest.raises(TypeError):
        checked.schema["type"] = "x"


def test_the_empty_node_accepts_any_json() -> None:
    compiled = accepts({})
    values: list[object] = [None, 1, 1.5, "s", [1, [2]], {"a": {"b": []}}]
    for value in values:
        assert compiled.validate(value) == Success(snapshot_json(value).unwrap())


# --- portable: rejected, each with its path and reason ------------------------------------------


@pytest.mark.parametrize(
    ("schema", "path", "words"),
    [
        ({"minimum": 1}, "/minimum", ["'minimum'", "portable", "'full'"]),
        ({"format": "email"}, "/format", ["'format'", "portable"]),
        ({"$ref": "#/x"}, "/$ref", ["'$ref'", "portable"]),
        ({"anyOf": [{}, {}]}, "/anyOf", ["'anyOf'", "oneOf"]),
        ({"x-vendor": 1}, "/x-vendor", ["unknown keyword 'x-vendor'", "accepted"]),
        ({"nullable": True}, "/nullable", ["'nullable'", "null"]),
        ({"definitions": {}}, "/definitions", ["'definitions'"]),
        (True, "", ["boolean schema", "{}"]),
        (False, "", ["boolean schema"]),
        (5, "", ["must be an object", "integer 5"]),
        ({"type": ["string", "null"]}, "/type", ["single name", "oneOf"]),
        ({"type": "text"}, "/type", ["type must be one of", '"text"']),
        ({"type": 3}, "/type", ["type must be one of"]),
        ({"oneOf": [{}]}, "/oneOf", ["at least 2 branches", "found 1"]),
        ({"oneOf": {}}, "/oneOf", ["list of at least 2"]),
        ({"oneOf": [{}, True]}, "/oneOf/1", ["boolean schema"]),
        ({"properties": {}}, "/properties", ['"type": "object"', "no type"]),
        ({"type": "string", "required": []}, "/required", ['"type": "object"', "'string'"]),
        ({"additionalProperties": False}, "/additionalProperties", ['"type": "object"']),
        (
            {"type": "object", "additionalProperties": {}},
            "/additionalProperties",
            ["true or false", "'full'"],
        ),
        ({"type": "object", "properties": []}, "/properties", ["object of schemas"]),
        ({"type": "object", "properties": {"a": True}}, "/properties/a", ["boolean schema"]),
        ({"type": "object", "properties": {"a": 1}}, "/properties/a", ["must be an object"]),
        ({"items": {}}, "/items", ['"type": "array"']),
        ({"type": "array", "items": [{}]}, "/items", ["one schema"]),
        ({"type": "array", "items": {"minItems": 1}}, "/items/minItems", ["'minItems'"]),
        ({"type": "object", "required": "a"}, "/required", ["list of property names"]),
        (
            {"type": "object", "properties": {"a": {}}, "required": ["a", "a"]},
            "/required/1",
            ["twice"],
        ),
        ({"type": "object", "required": ["a"]}, "/required/0", ["'a'", "not declared"]),
        ({"type": "object", "properties": {}, "required": [1]}, "/required/0", ["string"]),
        ({"enum": []}, "/enum", ["non-empty list"]),
        ({"enum": "a"}, "/enum", ["non-empty list"]),
        ({"enum": [1, [2]]}, "/enum/1", ["string, number, boolean or null", "array"]),
        ({"type": "integer", "enum": [1, 1.5]}, "/enum/1", ["1.5", "'integer'"]),
        ({"type": "integer", "enum": [True]}, "/enum/0", ["true", "'integer'"]),
        ({"type": "number", "enum": ["1"]}, "/enum/0", ["'1'", "'number'"]),
        ({"type": "boolean", "enum": [0]}, "/enum/0", ["'boolean'"]),
        ({"type": "object", "enum": [None]}, "/enum/0", ["'object'"]),
        ({"const": {"a": 1}}, "/const", ["const must be", "object"]),
        ({"type": "string", "const": 1}, "/const", ["const 1", "'string'"]),
        ({"description": 1}, "/description", ["must be a string"]),
        ({"title": None}, "/title", ["must be a string"]),
    ],
)
def test_portable_rejects_with_path_and_reason(schema: object, path: str, words: list[str]) -> None:
    found = problems(schema)
    assert path in found, found
    for word in words:
        assert word in found[path], (word, found[path])


@pytest.mark.parametrize(
    ("raw", "path", "words"),
    [
        ({"default": math.nan}, "/default", ["not JSON", "finite"]),
        ({"properties": {1: {}}}, "/properties", ["not JSON", "key 1"]),
        ({"examples": [object()]}, "/examples/0", ["not JSON", "object"]),
        ({"const": HUGE}, "/const", ["more than 4300 digits"]),
        ({"enum": [1, {"a": [HUGE]}]}, "/enum/1/a/0", ["more than 4300 digits"]),
    ],
)
def test_non_json_raw_schemas_are_rejected_with_their_path(
    raw: object, path: str, words: list[str]
) -> None:
    for profile in ("portable", "full"):
        found = problems(raw, profile)
        assert list(found) == [path]
        for word in words:
            assert word in found[path]


def test_every_problem_is_reported_at_once() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "minLength": 1},
            "b": {"type": "array", "items": {"anyOf": []}},
            "c": {"oneOf": [{"type": "integer", "enum": [0.5]}, {"$ref": "#"}]},
        },
        "required": ["a", "z"],
        "patternProperties": {},
    }
    assert set(problems(schema)) == {
        "/properties/a/minLength",
        "/properties/b/items/anyOf",
        "/properties/c/oneOf/0/enum/0",
        "/properties/c/oneOf/1/$ref",
        "/required/1",
        "/patternProperties",
    }


def test_misplaced_keywords_are_still_walked() -> None:
    found = problems({"properties": {"a": {"minimum": 1}}, "items": {"maximum": 2}})
    assert set(found) == {"/properties", "/properties/a/minimum", "/items", "/items/maximum"}


def test_the_error_renders_one_problem_a_line() -> None:
    error = check_json_schema({"minimum": 1, "x": 2}).failure()
    assert isinstance(error, JsonSchemaError)
    lines = str(error).splitlines()
    assert lines[0] == "the JSON Schema has 2 problems:"
    assert lines[1].startswith("- /minimum: keyword 'minimum'")
    assert lines[2].startswith("- /x: unknown keyword 'x'")
    assert str(SchemaProblem("", "bad")) == "(root): bad"


# --- full: accepted -----------------------------------------------------------------------------

FULL_EXAMPLE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://example.com/tool.json",
    "$comment": "every keyword at least once",
    "title": "t",
    "description": "d",
    "default": {},
    "examples": [{}],
    "deprecated": False,
    "readOnly": False,
    "writeOnly": False,
    "type": ["object", "null"],
    "properties": {
        "n": {"type": "number", "multipleOf": 0.5, "minimum": 0, "maximum": 10},
        "e": {"exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "s": {"type": "string", "minLength": 1, "maxLength": 5.0, "pattern": "^[a-z]+$"},
        "f": {"format": "email"},
        "a": {
            "type": "array",
            "prefixItems": [{"type": "integer"}],
            "items": {"type": "string"},
            "minItems": 1,
            "maxItems": 3,
            "uniqueItems": True,
            "contains": {"const": "x"},
            "minContains": 1,
            "maxContains": 2,
            "unevaluatedItems": False,
        },
        "o": {
            "patternProperties": {"^x-": True},
            "propertyNames": {"maxLength": 8},
            "minProperties": 1,
            "maxProperties": 4,
            "dependentRequired": {"a": ["b"]},
            "dependentSchemas": {"c": {"required": ["d"]}},
            "unevaluatedProperties": False,
        },
        "l": {"allOf": [{}], "anyOf": [{}, False], "oneOf": [True, False], "not": False},
        "c": {"if": {"type": "string"}, "then": {"minLength": 1}, "else": {"type": "null"}},
        "r": {"$ref": "#/$defs/pos"},
        "r2": {"$ref": "#positive"},
        "r3": {"$ref": "inner.json"},
        "r4": {"$ref": "https://example.com/tool.json#/$defs/pos"},
        "k": {"enum": [1, "a", [1], {"b": None}], "const": 1},
    },
    "additionalProperties": {"type": "boolean"},
    "required": ["n"],
    "$defs": {
        "pos": {"$anchor": "positive", "type": "integer", "minimum": 1},
        "inner": {"$id": "inner.json", "type": "string"},
        "dyn": {"$dynamicAnchor": "node", "$dynamicRef": "#node"},
    },
}


def test_full_accepts_every_enforced_keyword() -> None:
    compiled = accepts(FULL_EXAMPLE, "full")
    assert compiled.validate({"n": 1, "r": 2, "r3": "s"}).unwrap() == {"n": 1, "r": 2, "r3": "s"}
    bad = compiled.validate({"n": 0.3, "r": 0, "r2": 0, "r3": 1, "f": "no", "z": 1})
    paths = {issue.path for issue in bad.failure().issues}
    assert paths == {"/n", "/r", "/r2", "/r3", "/f", "/z"}


def test_full_keyword_table_is_what_the_example_uses() -> None:
    used: set[str] = set()

    def collect(node: object) -> None:
        if isinstance(node, dict):
            used.update(k for k in node if k in FULL_KEYWORDS)
            for key, value in node.items():
                if key not in ("enum", "const", "default", "examples"):
                    collect(value)
        elif isinstance(node, list):
            for item in node:
                collect(item)

    collect(FULL_EXAMPLE)
    assert used == FULL_KEYWORDS


@pytest.mark.parametrize("schema", [True, False, {"not": True}, {"$ref": "#"}])
def test_full_accepts_boolean_and_trivial_schemas(schema: object) -> None:
    accepts(schema, "full")


def test_full_accepts_references_to_the_bundled_meta_schema() -> None:
    compiled = accepts({"$ref": "https://json-schema.org/draft/2020-12/schema"}, "full")
    assert compiled.is_valid_frozen(snapshot_json({"type": "string"}).unwrap())
    assert not compiled.is_valid_frozen(snapshot_json({"type": 5}).unwrap())


def test_dynamic_references_are_enforced() -> None:
    generic_list = {
        "$id": "list.json",
        "type": "array",
        "items": {"$dynamicRef": "#item"},
        "$defs": {"item": {"$dynamicAnchor": "item"}},
    }
    schema = {
        "$id": "https://example.com/strings.json",
        "$ref": "list.json",
        "$defs": {"list": generic_list, "item": {"$dynamicAnchor": "item", "type": "string"}},
    }
    compiled = accepts(schema, "full")
    assert isinstance(compiled.validate(["x", "y"]), Success)
    assert only_issue(schema, ["x", 1]) == ValidationIssue("/1", "string", "integer 1")


# Each format jsonschema-rs checks, with a string it accepts and one it rejects.
FORMAT_EXAMPLES: dict[str, tuple[str, str]] = {
    "date-time": ("2024-01-02T03:04:05Z", "2024-01-02 nope"),
    "date": ("2024-01-02", "2024-13-02"),
    "time": ("03:04:05Z", "25:00:00Z"),
    "duration": ("P1DT2H", "PT1D"),
    "email": ("a@example.com", "not an email"),
    "idn-email": ("é@example.com", "nope"),
    "hostname": ("example.com", "-bad-.com"),
    "idn-hostname": ("例え.jp", "〮실례.테스트"),
    "ipv4": ("192.168.0.1", "256.0.0.1"),
    "ipv6": ("::1", "12345::"),
    "uri": ("https://example.com/a?b#c", "//no-scheme"),
    "uri-reference": ("../a/b", "\\\\WINDOWS\\share"),
    "iri": ("https://例え.jp/ä", "no scheme"),
    "iri-reference": ("ä/b", "\\\\WINDOWS\\ß"),
    "uuid": ("2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2eb8aa08-aa98-11ea"),
    "uri-template": ("https://example.com/{id}", "https://example.com/{id"),
    "json-pointer": ("/a/b~0", "a/b"),
    "relative-json-pointer": ("0/a", "/a"),
    "regex": ("^[a-z]+$", "^(abc]"),
}


def test_the_format_table_is_every_checked_format() -> None:
    assert set(FORMAT_EXAMPLES) == FORMATS


@pytest.mark.parametrize("name", sorted(FORMAT_EXAMPLES))
def test_every_accepted_format_is_really_checked(name: str) -> None:
    good, bad = FORMAT_EXAMPLES[name]
    compiled = accepts({"format": name}, "full")
    assert isinstance(compiled.validate(good), Success)
    issue = compiled.validate(bad).failure().issues[0]
    assert issue.expected == f"string in '{name}' format"


@pytest.mark.parametrize("name", ["color", "int32", "binary", "password", "unknown"])
def test_unchecked_formats_are_rejected_and_really_unknown(name: str) -> None:
    assert "not checked" in problems({"format": name}, "full")["/format"]
    with pytest.raises(jsonschema_rs.ValidationError):
        jsonschema_rs.Draft202012Validator(
            {"format": name}, validate_formats=True, ignore_unknown_formats=False
        )


# --- full: rejected -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "path", "words"),
    [
        ({"foo": 1}, "/foo", ["unknown keyword 'foo'"]),
        ({"properties": {"a": {"foo": 1}}}, "/properties/a/foo", ["'foo'"]),
        ({"allOf": [{"bar": 1}]}, "/allOf/0/bar", ["'bar'"]),
        ({"$defs": {"x": {"baz": 1}}}, "/$defs/x/baz", ["'baz'"]),
        ({"items": {"not": {"qux": 1}}}, "/items/not/qux", ["'qux'"]),
        ({"prefixItems": [{}, {"if": {"q": 1}}]}, "/prefixItems/1/if/q", ["'q'"]),
        ({"dependentSchemas": {"a": {"q": 1}}}, "/dependentSchemas/a/q", ["'q'"]),
        ({"definitions": {}}, "/definitions", ["$defs"]),
        ({"dependencies": {}}, "/dependencies", ["dependentRequired", "dependentSchemas"]),
        ({"additionalItems": False}, "/additionalItems", ["prefixItems"]),
        ({"$recursiveRef": "#"}, "/$recursiveRef", ["$dynamicRef"]),
        ({"contentMediaType": "application/json"}, "/contentMediaType", ["not be enforced"]),
        ({"contentEncoding": "base64"}, "/contentEncoding", ["not be enforced"]),
        ({"contentSchema": {}}, "/contentSchema", ["not be enforced"]),
        ({"$vocabulary": {}}, "/$vocabulary", ["meta-schema"]),
        ({"nullable": True}, "/nullable", ["OpenAPI"]),
        (
            {"$schema": "http://json-schema.org/draft-07/schema#"},
            "/$schema",
            ["Draft 2020-12", "draft-07"],
        ),
        ({"$schema": 1}, "/$schema", ["Draft 2020-12"]),
        ({"$ref": "https://example.com/x.json"}, "/$ref", ["outside this schema", "no network"]),
        ({"$ref": "other.json#/a"}, "/$ref", ["outside this schema"]),
        ({"$id": "https://a.com/r.json", "$ref": "s.json"}, "/$ref", ["https://a.com/s.json"]),
        ({"$ref": "#/$defs/missing"}, "/$ref", ["points to nothing"]),
        ({"$ref": "#/$defs/a/0", "$defs": {"a": {}}}, "/$ref", ["points to nothing"]),
        ({"$ref": "#/required", "required": []}, "/$ref", ["not a schema"]),
        ({"$ref": "#nowhere"}, "/$ref", ["no $anchor", "'nowhere'"]),
        ({"$dynamicRef": "#nowhere"}, "/$dynamicRef", ["no $anchor"]),
        ({"$ref": 1}, "/$ref", ["must be a string"]),
        ({"$id": "https://a.com/x#frag"}, "/$id", ["fragment"]),
        ({"$anchor": "1bad"}, "/$anchor", ["name like"]),
        ({"minimum": "1"}, "/minimum", ["must be a number"]),
        ({"exclusiveMaximum": True}, "/exclusiveMaximum", ["must be a number"]),
        ({"maxLength": -1}, "/maxLength", ["integer >= 0"]),
        ({"minItems": 1.5}, "/minItems", ["integer >= 0"]),
        ({"maxProperties": False}, "/maxProperties", ["integer >= 0"]),
        ({"multipleOf": 0}, "/multipleOf", ["> 0"]),
        ({"type": "text"}, "/type", ["type must be one of"]),
        ({"type": []}, "/type", ["non-empty list"]),
        ({"type": ["string", "string"]}, "/type", ["distinct"]),
        ({"required": "a"}, "/required", ["list of property names"]),
        ({"required": ["a", "a"]}, "/required", ["more than once"]),
        ({"dependentRequired": {"a": "b"}}, "/dependentRequired", ["dependentRequired/a"]),
        ({"dependentRequired": []}, "/dependentRequired", ["object of name lists"]),
        ({"pattern": "("}, "/pattern", ["not a valid regular expression"]),
        ({"pattern": 1}, "/pattern", ["must be a string"]),
        ({"patternProperties": {"(": {}}}, "/patternProperties/(", ["regular expression"]),
        ({"format": 1}, "/format", ["not checked"]),
        ({"uniqueItems": 1}, "/uniqueItems", ["true or false"]),
        ({"examples": {}}, "/examples", ["must be a list"]),
        ({"enum": "a"}, "/enum", ["must be a list"]),
        ({"title": 1}, "/title", ["must be a string"]),
        ({"allOf": []}, "/allOf", ["non-empty list"]),
        ({"anyOf": {}}, "/anyOf", ["non-empty list"]),
        ({"properties": []}, "/properties", ["object of schemas"]),
        ({"properties": {"a": 5}}, "/properties/a", ["object or a boolean"]),
        ({"not": "x"}, "/not", ["object or a boolean"]),
        ({"items": [{}]}, "/items", ["prefixItems"]),
        ("schema", "", ["object or a boolean"]),
    ],
)
def test_full_rejects_with_path_and_reason(schema: object, path: str, words: list[str]) -> None:
    found = problems(schema, "full")
    assert path in found, found
    for word in words:
        assert word in found[path], (word, found[path])


def test_full_reports_every_problem_at_once() -> None:
    schema = {
        "properties": {"a": {"minimum": "x", "foo": 1}},
        "$defs": {"b": {"$ref": "#/nope"}},
        "allOf": [{"format": "color"}],
    }
    found = problems(schema, "full")
    assert set(found) == {
        "/properties/a/minimum",
        "/properties/a/foo",
        "/$defs/b/$ref",
        "/allOf/0/format",
    }


def test_a_compile_error_becomes_a_problem() -> None:
    reference = "https://json-schema.org/draft/2020-12/schema#/$defs/missing"
    result = compile_json_schema({"$ref": reference}, "full")
    error = result.failure()
    assert len(error.problems) == 1
    assert "validator refused" in error.problems[0].reason
    assert "missing" in error.problems[0].reason


# --- compiling and caching ----------------------------------------------------------------------


def test_equal_schemas_share_one_cached_validator() -> None:
    first = accepts({"type": "object", "properties": {"a": {"type": "string"}}})
    second = accepts({"properties": {"a": {"type": "string"}}, "type": "object"})
    full = accepts({"type": "object", "properties": {"a": {"type": "string"}}}, "full")
    same = accepts({"type": "object", "properties": {"a": {"type": "string"}}})
    assert first is same  # one compiled schema: its frozen JSON and validator stored once
    assert second is not first  # its own key order, which its tool shows the model
    assert second.validator is first.validator  # which a validator does not depend on
    assert full is not first  # checked for another profile
    assert first.validator is full.validator


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"type": "string", "format": "email"}, {"type": "string", "format": "uri"}),
        ({"type": "string", "pattern": "^a$"}, {"type": "string", "pattern": "^b$"}),
        ({"const": 1}, {"const": 1.0}),
        ({"const": 1}, {"const": True}),
        (
            {"$ref": "#/$defs/n", "$defs": {"n": {"type": "string"}}},
            {"$ref": "#/$defs/n", "$defs": {"n": {"type": "integer"}}},
        ),
    ],
)
def test_schemas_one_keyword_apart_share_nothing(
    first: dict[str, Any], second: dict[str, Any]
) -> None:
    one, other = accepts(first, "full"), accepts(second, "full")
    assert one is not other
    assert one.validator is not other.validator


def test_equal_schemas_are_checked_and_compiled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    checks: list[object] = []
    compiles: list[object] = []
    compile_validator = jsonschema_rs.Draft202012Validator

    def counted_check(schema: FrozenJson) -> list[SchemaProblem]:
        checks.append(schema)
        return portable_problems(schema)

    def counted_compile(schema: dict[str, Any], **options: Any) -> jsonschema_rs.Validator:
        compiles.append(schema)
        return compile_validator(schema, **options)

    monkeypatch.setattr(_check, "portable_problems", counted_check)
    monkeypatch.setattr(jsonschema_rs, "Draft202012Validator", counted_compile)
    schema = {"type": "object", "properties": {"only_here_1000": {"type": "integer"}}}
    held = [accepts({**schema}) for _ in range(1000)]
    assert all(compiled is held[0] for compiled in held)
    assert (len(checks), len(compiles)) == (1, 0)  # compiled on first use
    assert all(is_successful(compiled.validate({"only_here_1000": 1})) for compiled in held)
    assert (len(checks), len(compiles)) == (1, 1)


def test_a_raw_schema_equal_in_text_only_is_snapshotted_and_checked() -> None:
    held = accepts({"type": "object", "properties": {"1": {"type": "string"}}})
    assert accepts({"type": "object", "properties": {"1": {"type": "string"}}}) is held
    refused = compile_json_schema({"type": "object", "properties": {1: {"type": "string"}}})
    assert not is_successful(refused)  # the same text, but a key that is not a string
    listed = accepts({"enum": ["only", "here"]})
    assert accepts({"enum": ("only", "here")}) is listed  # a tuple is snapshotted as a list


def test_a_compiled_schema_goes_with_its_last_holder() -> None:
    compiled = accepts({"type": "string", "description": "held here only"})
    gone = weakref.ref(compiled)
    del compiled
    gc.collect()
    assert gone() is None  # the sharing cache does not keep it


def test_a_held_validator_is_shared_however_many_schemas_were_compiled_since() -> None:
    held = accepts({"type": "string", "enum": ["held-77"], "description": "held"})
    for n in range(VALIDATOR_CACHE_SIZE + 1):  # every validator compiled before is out of the LRU
        accepts({"type": "integer", "enum": [n], "description": "filler"})
    same_view = accepts({"type": "string", "enum": ["held-77"], "description": "another"})
    assert same_view is not held  # another annotation: its own compiled schema
    assert same_view.validator is held.validator  # the one validator of the living view


def test_portable_annotations_do_not_split_the_cache() -> None:
    plain = accepts({"type": "string"})
    annotated = accepts({"type": "string", "description": "x", "examples": "not a list"})
    assert plain.validator is annotated.validator
    assert annotated.checked.schema == {
        "type": "string",
        "description": "x",
        "examples": "not a list",
    }


def test_a_checked_schema_is_not_checked_again_for_its_profile() -> None:
    checked = check_json_schema({"type": "string", "description": "not checked twice"}).unwrap()
    assert accepts(checked).checked is checked
    as_full = accepts(checked, "full")
    assert as_full.checked == CheckedSchema(checked.schema, "full")
    portable_only = check_json_schema({"examples": 1}).unwrap()
    assert "/examples" in compile_json_schema(portable_only, "full").failure().problems[0].path


# --- validating ---------------------------------------------------------------------------------


def test_validate_gives_back_the_frozen_value() -> None:
    compiled = accepts(TOOL)
    value = {"path": "a", "tags": ["x"]}
    frozen = compiled.validate(value).unwrap()
    assert isinstance(frozen, FrozenDict)
    assert frozen == value
    assert compiled.validate(frozen).unwrap() is frozen
    assert compiled.is_valid_frozen(frozen)


@pytest.mark.parametrize(
    ("value", "path", "words"),
    [
        ({"path": math.inf}, "/path", ["finite"]),
        ({"path": "a", "tags": [{1: 2}]}, "/tags/0", ["key"]),
        ({"path": {1, 2}}, "/path", ["set"]),
        ({"path": "a", "limit": HUGE}, "/limit", ["more than 4300 digits"]),
    ],
)
def test_non_json_values_fail_with_their_path(value: object, path: str, words: list[str]) -> None:
    issue = only_issue(TOOL, value, "portable")
    assert issue.path == path
    assert issue.expected == "JSON"
    for word in words:
        assert word in issue.found


def test_a_cyclic_value_fails_as_not_json() -> None:
    value: dict[str, Any] = {"path": "a"}
    value["tags"] = [value]
    issue = only_issue(TOOL, value, "portable")
    assert (issue.path, issue.expected) == ("/tags/0", "JSON")
    assert "cycle" in issue.found


def test_validate_reports_every_issue() -> None:
    value = {"limit": "10", "mode": "pages", "tags": ["a", 2], "extra": True, "target": 1}
    found = {(i.path, i.expected, i.found) for i in issues(TOOL, value, "portable")}
    assert found == {
        ("", "required property 'path'", "object without it"),
        ("/limit", "integer", 'string "10"'),
        ("/mode", "one of 'lines', 'bytes'", 'string "pages"'),
        ("/tags/1", "string", "integer 2"),
        (
            "/extra",
            "no property 'extra' (allowed: path, limit, mode, tags, target)",
            "boolean true",
        ),
        (
            "/target",
            "exactly one of: null | object with kind = 'file' (none matched)",
            "integer 1",
        ),
    }


def test_failure_for_collects_the_issues_of_a_frozen_value() -> None:
    compiled = accepts(TOOL)
    frozen = snapshot_json({"path": 1}).unwrap()
    assert not compiled.is_valid_frozen(frozen)
    failure = compiled.failure_for(frozen)
    assert failure.issues == (ValidationIssue("/path", "string", "integer 1"),)


@pytest.mark.parametrize(
    ("schema", "value", "path", "expected", "found"),
    [
        ({"type": ["string", "null"]}, 1, "", "null or string", "integer 1"),
        ({"type": "integer", "minimum": 1}, -3, "", "integer >= 1", "integer -3"),
        ({"exclusiveMinimum": 0}, 0, "", "number > 0", "integer 0"),
        ({"maximum": 1.5}, 2, "", "number <= 1.5", "integer 2"),
        ({"exclusiveMaximum": 1}, 1.0, "", "number < 1", "number 1.0"),
        ({"multipleOf": 3}, 4, "", "a multiple of 3", "integer 4"),
        ({"minLength": 2}, "a", "", "string of at least 2 characters", 'string "a"'),
        ({"maxLength": 1}, "ab", "", "string of at most 1 character", 'string "ab"'),
        ({"pattern": "^a"}, "b", "", "string matching the pattern ^a", 'string "b"'),
        ({"minItems": 1}, [], "", "at least 1 item", "empty array"),
        ({"maxItems": 10}, [0] * 11, "", "at most 10 items", "array with 11 items"),
        ({"uniqueItems": True}, [1, 1], "", "items that are all different", "array with 2 items"),
        ({"minProperties": 1}, {}, "", "at least 1 property", "empty object"),
        ({"maxProperties": 1}, {"a": 1, "b": 2}, "", "at most 1 property", "object with 2 keys"),
        ({"const": "a"}, "b", "", "exactly 'a'", 'string "b"'),
        ({"enum": [1, None]}, 2, "", "one of 1, null", "integer 2"),
        ({"not": {"type": "string"}}, "s", "", "a value that is not string", 'string "s"'),
        ({"not": {"minimum": 3}}, 4, "", "a value the 'not' schema rejects", "integer 4"),
        ({"items": False}, [1], "/0", "nothing (no value is allowed here)", "integer 1"),
        ({"format": "ipv4"}, "x", "", "string in 'ipv4' format", 'string "x"'),
        (
            {"contains": {"type": "string"}},
            [1],
            "",
            "at least one item matching 'contains'",
            "array with 1 item",
        ),
        (
            {"contains": {"type": "string"}, "minContains": 2},
            ["a"],
            "",
            "at least 2 items matching 'contains'",
            "array with 1 item",
        ),
        (
            {"contains": {"type": "string"}, "maxContains": 1},
            ["a", "b"],
            "",
            "at most 1 item matching 'contains'",
            "array with 2 items",
        ),
        (
            {"dependentRequired": {"a": ["b"]}},
            {"a": 1},
            "",
            "required property 'b'",
            "object without it",
        ),
        (
            {"propertyNames": {"maxLength": 2}},
            {"abc": 1},
            "",
            "property names that are string of at most 2 characters",
            'property name "abc"',
        ),
        (
            {"unevaluatedProperties": False},
            {"a": 1},
            "/a",
            "no property 'a' (no keyword of the schema declares it)",
            "integer 1",
        ),
        (
            {"prefixItems": [{}], "unevaluatedItems": False},
            [1, 2, 3],
            "",
            "no items beyond those the schema describes (2 extra items)",
            "array with 3 items",
        ),
        (
            {"anyOf": [{"type": "string"}, {"type": "null"}]},
            1,
            "",
            "at least one of: string | null (none matched)",
            "integer 1",
        ),
        (
            {"oneOf": [{"type": "number"}, {"type": "integer"}]},
            1,
            "",
            "exactly one of: number | integer (but 2 matched: number | integer)",
            "integer 1",
        ),
        (
            {"oneOf": [{"title": "Small", "maximum": 5}, {"minimum": 3}, {"enum": [9]}]},
            4,
            "",
            "exactly one of: Small | alternative #1 | one of 9 "
            "(but 2 matched: Small | alternative #1)",
            "integer 4",
        ),
    ],
)
def test_each_kind_of_issue_says_what_was_expected_and_found(
    schema: object, value: object, path: str, expected: str, found: str
) -> None:
    assert only_issue(schema, value) == ValidationIssue(path, expected, found)


def test_oneof_adds_the_issues_of_the_branch_that_came_closest() -> None:
    shape = {
        "oneOf": [
            {
                "type": "object",
                "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
                "required": ["kind", "r"],
            },
            {
                "type": "object",
                "properties": {"kind": {"const": "square"}, "side": {"type": "number"}},
                "required": ["kind", "side"],
            },
        ]
    }
    found = issues(
        {"type": "object", "properties": {"shape": shape}}, {"shape": {"kind": "circle"}}
    )
    assert found == [
        ValidationIssue(
            "/shape",
            "exactly one of: object with kind = 'circle' | object with kind = 'square' "
            "(none matched)",
            "object with 1 key",
        ),
        ValidationIssue("/shape", "required property 'r'", "object without it"),
    ]


def test_branches_behind_a_reference_are_named() -> None:
    schema = {
        "$defs": {
            "Id": {"oneOf": [{"type": "string"}, {"$ref": "#/$defs/Num"}]},
            "Num": {"type": "integer"},
        },
        "properties": {"id": {"$ref": "#/$defs/Id"}},
    }
    issue = only_issue(schema, {"id": 1.5})
    assert issue == ValidationIssue(
        "/id", "exactly one of: string | 'Num' (none matched)", "number 1.5"
    )


# --- messages -----------------------------------------------------------------------------------


def test_the_message_is_short_enough_to_fix_a_call_in_one_retry() -> None:
    failure = ValidationFailure(
        (
            ValidationIssue("/limit", "integer >= 1", "integer -3"),
            ValidationIssue("", "required property 'path'", "object without it"),
        )
    )
    assert failure.message("Invalid arguments for tool `read`") == (
        "Invalid arguments for tool `read`: 2 problems\n"
        "- /limit: expected integer >= 1, found integer -3\n"
        "- (root): expected required property 'path', found object without it"
    )


def test_the_message_lists_ten_issues_then_counts_the_rest() -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    failure = accepts(schema).validate(list(range(25))).failure()
    assert len(failure.issues) == 25
    lines = failure.message("Bad").splitlines()
    assert lines[0] == "Bad: 25 problems"
    assert lines[1] == "- /0: expected string, found integer 0"
    assert len(lines) == 12
    assert lines[-1] == "... and 15 more"
    single = accepts(schema).validate([1]).failure().message("Bad")
    assert single.splitlines()[0] == "Bad: 1 problem"


def test_found_values_are_truncated() -> None:
    long_text = "x" * 500
    found = only_issue({"type": "integer"}, long_text).found
    assert found.startswith('string "xxx')
    assert found.endswith('..." (500 characters)')
    assert len(found) < 90
    assert "(2 extra" not in describe_value(10**100)
    assert describe_value(10**100).endswith("(101 digits)")
    assert len(render_literal(list(range(100)))) <= 60
    assert describe_value(HUGE).startswith("integer with ")


def test_paths_escape_keys_as_json_pointers() -> None:
    schema = {"properties": {"a/b": {"properties": {"c~d": {"type": "string"}}}}}
    assert only_issue(schema, {"a/b": {"c~d": 1}}).path == "/a~1b/c~0d"


def test_issue_paths_resolve_in_the_instance() -> None:
    value = {"limit": "x", "tags": [1, "a", 2], "extra": 1, "target": {"kind": "dir"}}
    frozen: FrozenJson = snapshot_json(value).unwrap()
    for issue in issues(TOOL, value, "portable"):
        node: object = frozen
        for raw in issue.path.split("/")[1:]:
            segment = raw.replace("~1", "/").replace("~0", "~")
            node = node[int(segment)] if isinstance(node, list) else node[segment]  # type: ignore[index]


def test_a_new_raw_schema_is_written_as_text_once_and_its_view_once_on_first_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    written: list[str] = []
    for name in ("_exact_text", "_canonical_text"):
        write = getattr(_check, name)

        def counted(schema: FrozenJson, write: Any = write, name: str = name) -> str:
            written.append(name)
            return str(write(schema))

        monkeypatch.setattr(_check, name, counted)
    raw = {"type": "object", "properties": {"never_seen_before_7f3a": {"type": "string"}}}
    compiled = compile_json_schema(raw).unwrap()
    assert written == ["_exact_text"]  # the key (and lookup)
    assert compile_json_schema(dict(raw)).unwrap() is compiled
    assert written[1:] == ["_exact_text"]  # an equal one: found by its text alone
    for _ in range(2):
        assert is_successful(compiled.validate({"never_seen_before_7f3a": "a"}))
    assert written[2:] == ["_canonical_text"]  # the view, on first use only
