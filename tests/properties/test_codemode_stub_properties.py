"""Laws of Code Mode stubs over random tools: they parse, map each tool once, stay bounded."""

from __future__ import annotations

import ast
import json
import keyword
from collections.abc import Mapping

from hypothesis import given
from hypothesis import strategies as st

from tests.stubs_strategies import hostile_text, stub_tools
from tests.stubs_support import stub_functions
from toolfx.core import StubTool, code_stubs
from toolfx.core.codemode._types import MAX_CHARS


def _root_properties(parameters: object) -> list[str]:
    node = parameters
    if isinstance(node, Mapping) and node.get("$ref") == "#/$defs/Node":
        defs = node["$defs"]
        assert isinstance(defs, Mapping)
        node = defs["Node"]
    assert isinstance(node, Mapping)
    properties = node["properties"]
    assert isinstance(properties, Mapping)
    return list(properties)


@given(stub_tools())
def test_stubs_parse_with_one_keyword_only_async_def_per_tool(tools: list[StubTool]) -> None:
    stubs = code_stubs(tools)
    functions = stub_functions(stubs.text)
    assert list(functions) == list(stubs.functions)
    assert list(stubs.functions.values()) == [tool.name for tool in tools]
    for (identifier, function), tool in zip(functions.items(), tools, strict=True):
        assert function.positional == 0
        assert function.docstring == tool.description
        arguments = stubs.arguments[identifier]
        assert sorted(function.required + function.optional) == sorted(arguments)
        assert list(arguments.values()) == _root_properties(tool.parameters)


@given(stub_tools())
def test_every_stub_name_is_a_unique_usable_identifier(tools: list[StubTool]) -> None:
    stubs = code_stubs(tools)
    module = ast.parse(stubs.text)
    top = [
        node.name if isinstance(node, ast.ClassDef | ast.AsyncFunctionDef) else ""
        for node in module.body[1:]
    ] + [
        target.id
        for node in module.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    ]
    names = [name for name in top if name]
    assert len(names) == len(set(names))
    for name in names:
        assert name.isascii()
        assert name.isidentifier()
        assert not keyword.iskeyword(name)
        assert not keyword.issoftkeyword(name)
        assert not name.startswith("_")
    for arguments in stubs.arguments.values():
        for argument in arguments:
            assert argument.isascii()
            assert argument.isidentifier()
            assert not keyword.iskeyword(argument)


@given(stub_tools())
def test_stubs_are_deterministic_and_names_do_not_depend_on_order(tools: list[StubTool]) -> None:
    stubs = code_stubs(tools)
    assert code_stubs(list(tools)) == stubs
    assert dict(code_stubs(tools[::-1]).functions) == dict(stubs.functions)


@given(stub_tools())
def test_stubs_grow_at_most_linearly_in_their_input(tools: list[StubTool]) -> None:
    stubs = code_stubs(tools)
    source = json.dumps(
        [[t.name, t.description, t.parameters, t.output] for t in tools], ensure_ascii=False
    )
    assert len(stubs.text) <= 12 * len(source) + (MAX_CHARS + 200) * len(tools) + 100
    stubs.text.encode()  # printable UTF-8, whatever the input held


@given(st.lists(hostile_text, max_size=8, unique=True))
def test_any_names_at_all_still_map_one_to_one(names: list[str]) -> None:
    stubs = code_stubs([StubTool(name, "", {}) for name in names])
    assert list(stubs.functions.values()) == names
    assert list(stub_functions(stubs.text)) == list(stubs.functions)
