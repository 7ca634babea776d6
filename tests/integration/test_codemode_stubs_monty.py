"""Code Mode stubs under Monty's own type checker: right calls pass, wrong ones are refused.

Each program is fed to a real Monty session checked out with `type_check=True` and the stubs; a
call that type-checks pauses at the external function (a `FunctionSnapshot` naming the stub's
identifier and its keyword arguments), which the stubs' mappings turn back into the tool's name
and the schema's property names.
"""

from __future__ import annotations

from collections.abc import Iterator

import pydantic_monty
import pytest
from hypothesis import HealthCheck, given, settings

from tests.stubs_strategies import stub_tools
from toolfx.core import CodeStubs, FrozenJson, StubTool, code_stubs

_NODE: FrozenJson = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
    },
    "required": ["name"],
}
TOOLS = [
    StubTool(
        "read-file",
        'Read a file.\n"""\\ \x00 \ud800 """',
        {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "where\nit is"},
                "mode": {"enum": ["text", "bytes"]},
                "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "class": {"type": "boolean"},
            },
            "required": ["path"],
        },
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    ),
    StubTool("read_file", "The other one.", {"type": "object"}),
    StubTool(
        "3d-tree",
        "Walk a tree.",
        {
            "type": "object",
            "properties": {
                "root": {"$ref": "#/$defs/Node"},
                "id": {"type": "integer"},
                "type": {"const": "deep"},
                "headers": {
                    "type": "object",
                    "properties": {"x-trace": {"type": "string"}, "str": {"type": "integer"}},
                },
            },
            "required": ["root"],
            "$defs": {"Node": _NODE},
        },
        {"type": "array", "items": {"type": "string"}},
    ),
]


@pytest.fixture(scope="module")
def pool() -> Iterator[pydantic_monty.Monty]:
    """One Monty worker pool for the module."""
    with pydantic_monty.Monty() as monty:
        yield monty


def _start(pool: pydantic_monty.Monty, stubs: CodeStubs, program: str) -> object:
    with pool.checkout(
        type_check=True, type_check_stubs=stubs.text, type_check_format="concise"
    ) as session:
        return session.feed_start(program)


def test_the_catalog_maps_names_as_expected() -> None:
    stubs = code_stubs(TOOLS)
    assert dict(stubs.functions) == {
        "read_file_2": "read-file",
        "read_file": "read_file",
        "tool_3d_tree": "3d-tree",
    }
    assert dict(stubs.arguments["read_file_2"])["class_"] == "class"


@pytest.mark.parametrize(
    ("program", "function", "arguments"),
    [
        (
            'await read_file_2(path="a", mode="bytes", limit=None)',
            "read-file",
            {"path", "mode", "limit"},
        ),
        ('(await read_file_2(path="a", class_=True))["text"]', "read-file", {"path", "class"}),
        ("await read_file()", "read_file", set()),
        (
            'await tool_3d_tree(root={"name": "r", "kids": [{"name": "k", "kids": []}]}, id=3,'
            ' type="deep", headers={"x-trace": "t", "str": 1})',
            "3d-tree",
            {"root", "id", "type", "headers"},
        ),
        ('[n.upper() for n in await tool_3d_tree(root={"name": "r"})]', "3d-tree", {"root"}),
    ],
)
def test_calls_that_match_the_schemas_type_check_and_map_back(
    pool: pydantic_monty.Monty, program: str, function: str, arguments: set[str]
) -> None:
    stubs = code_stubs(TOOLS)
    snapshot = _start(pool, stubs, program)
    assert isinstance(snapshot, pydantic_monty.FunctionSnapshot)
    identifier = snapshot.function_name
    assert isinstance(identifier, str)
    assert stubs.functions[identifier] == function
    assert {stubs.arguments[identifier][k] for k in snapshot.kwargs} == arguments


@pytest.mark.parametrize(
    "program",
    [
        "await read_file_2(path=1)",  # wrong scalar
        'await read_file_2(path="a", mode="lines")',  # not a Literal member
        "await read_file_2()",  # a required argument missing
        'await read_file_2("a")',  # positional
        'await read_file_2(path="a", other=1)',  # no such parameter
        'await read_file_2(path="a", **{"class": True})',  # the schema's name, not the mapped one
        'await tool_3d_tree(root={"name": 1})',  # a TypedDict key of the wrong type
        'await tool_3d_tree(root={"name": "r", "kids": [{"kids": []}]})',  # forward-referenced
        'await tool_3d_tree(root={"name": "r"}, type="shallow")',  # const
        'await tool_3d_tree(root={"name": "r"}, headers={"str": "no"})',  # functional TypedDict
        '(await read_file_2(path="a"))["missing"]',  # output TypedDict
        "await read_dir()",  # no such tool
    ],
)
def test_calls_that_do_not_match_are_refused_by_the_checker(
    pool: pydantic_monty.Monty, program: str
) -> None:
    with pytest.raises(pydantic_monty.MontyTypingError):
        _start(pool, code_stubs(TOOLS), program)


@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stub_tools(max_size=4))
def test_random_stubs_give_the_checker_every_function(
    pool: pydantic_monty.Monty, tools: list[StubTool]
) -> None:
    stubs = code_stubs(tools)
    program = "[" + ", ".join(stubs.functions) + "]"
    _start(pool, stubs, program)  # an unresolved name would be a MontyTypingError


def test_arguments_named_like_builtins_or_types_keep_their_names_and_types(
    pool: pydantic_monty.Monty,
) -> None:
    node: FrozenJson = {"type": "object", "properties": {"a": {"type": "string"}}}
    parameters: FrozenJson = {
        "type": "object",
        "properties": {"Node": {"$ref": "#/$defs/Node"}, "str": {"type": "integer"}},
        "required": ["Node", "str"],
        "$defs": {"Node": node},
    }
    stubs = code_stubs([StubTool("f", "d", parameters)])
    assert dict(stubs.arguments["f"]) == {"Node": "Node", "str": "str"}
    snapshot = _start(pool, stubs, 'await f(Node={"a": "x"}, str=1)')
    assert isinstance(snapshot, pydantic_monty.FunctionSnapshot)
    for wrong in ('await f(Node={"a": 1}, str=1)', 'await f(Node={"a": "x"}, str="1")'):
        with pytest.raises(pydantic_monty.MontyTypingError):
            _start(pool, stubs, wrong)


def test_a_class_past_the_budget_still_checks_as_a_dict(pool: pydantic_monty.Monty) -> None:
    properties: dict[str, FrozenJson] = {f"key_{i:04}_{'k' * 30}": {} for i in range(1200)}
    properties["kids"] = {"type": "array", "items": {"$ref": "#/$defs/Node"}}
    parameters: FrozenJson = {
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "required": ["root"],
        "$defs": {"Node": {"type": "object", "properties": properties}},
    }
    stubs = code_stubs([StubTool("f", "d", parameters)])
    assert "Node = dict[str, Any]" in stubs.text
    snapshot = _start(pool, stubs, 'await f(root={"kids": [{"x": 1}]})')
    assert isinstance(snapshot, pydantic_monty.FunctionSnapshot)
    with pytest.raises(pydantic_monty.MontyTypingError):
        _start(pool, stubs, "await f(root=1)")
