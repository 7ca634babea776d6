"""Code Mode stubs: the type rules, the naming rules, hostile text and the bounds."""

from __future__ import annotations

import ast
import builtins
import keyword

import pytest

from tests.stubs_support import stub_functions
from toolfx.core import CodeStubs, FrozenJson, StubTool, code_stubs
from toolfx.core.codemode._identifiers import SANDBOX_MODULES


def _tool(
    parameters: FrozenJson,
    output: FrozenJson | None = None,
    *,
    name: str = "tool",
    description: str = "A tool.",
) -> StubTool:
    return StubTool(name, description, parameters, output)


def _argument(schema: FrozenJson, *, defs: FrozenJson = None) -> tuple[str, str]:
    """The annotation of a required argument `x` with `schema`, and the whole stub text."""
    parameters: dict[str, FrozenJson] = {"type": "object", "properties": {"x": schema}}
    parameters["required"] = ["x"]
    if defs is not None:
        parameters["$defs"] = defs
    stubs = code_stubs([_tool(parameters)])
    (function,) = (n for n in ast.parse(stubs.text).body if isinstance(n, ast.AsyncFunctionDef))
    annotation = function.args.kwonlyargs[0].annotation
    assert annotation is not None
    return ast.unparse(annotation), stubs.text


def _classes(text: str) -> dict[str, list[str]]:
    """Each TypedDict (class or functional syntax) of a stub text -> its field lines."""
    found: dict[str, list[str]] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.ClassDef):
            found[node.name] = [ast.unparse(f) for f in node.body]
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            (target,) = node.targets
            assert isinstance(target, ast.Name)
            fields = node.value.args[1]
            assert isinstance(fields, ast.Dict)
            found[target.id] = [
                f"{ast.literal_eval(k)}: {ast.unparse(v)}"
                for k, v in zip(fields.keys, fields.values, strict=True)
                if k is not None
            ]
    return found


# --- the type rules -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("string", "str"),
        ("integer", "int"),
        ("number", "float"),
        ("boolean", "bool"),
        ("null", "None"),
        ("nonsense", "Any"),
    ],
)
def test_scalar_types(kind: str, expected: str) -> None:
    assert _argument({"type": kind})[0] == expected


def test_no_schema_keywords_mean_any() -> None:
    assert _argument({})[0] == "Any"
    assert _argument(True)[0] == "Any"
    assert _argument({"description": "anything"})[0] == "Any"


def test_arrays_are_lists_of_their_items() -> None:
    assert _argument({"type": "array", "items": {"type": "integer"}})[0] == "list[int]"
    assert _argument({"type": "array"})[0] == "list[Any]"
    assert _argument({"type": "array", "items": [{"type": "string"}]})[0] == "list[Any]"
    assert _argument({"items": {"type": "string"}})[0] == "list[str]"


def test_objects_with_properties_are_typed_dicts_with_not_required_optional_keys() -> None:
    schema: FrozenJson = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["path"],
    }
    annotation, text = _argument(schema)
    assert annotation == "ToolX"
    assert _classes(text) == {"ToolX": ["path: str", "limit: NotRequired[int]"]}


def test_a_nullable_object_with_properties_is_its_typed_dict_or_none() -> None:
    schema: FrozenJson = {"type": ["object", "null"], "properties": {"a": {"type": "string"}}}
    annotation, text = _argument(schema)
    assert annotation == "ToolX | None"
    assert _classes(text) == {"ToolX": ["a: NotRequired[str]"]}


def test_objects_without_properties_are_dicts() -> None:
    extra: FrozenJson = {"type": "object", "additionalProperties": {"type": "number"}}
    assert _argument(extra)[0] == "dict[str, float]"
    assert _argument({"type": "object"})[0] == "dict[str, Any]"
    assert _argument({"type": "object", "properties": {}})[0] == "dict[str, Any]"


def test_enum_members_become_a_literal_and_others_widen() -> None:
    assert _argument({"enum": ["a", "b", 3, True]})[0] == "Literal['a', 'b', 3, True]"
    assert _argument({"enum": ["a", None]})[0] == "Literal['a'] | None"
    assert _argument({"enum": ["a", 1.5, [1], {"k": 1}]})[0] == (
        "Literal['a'] | float | list[Any] | dict[str, Any]"
    )
    assert _argument({"enum": [2**63, -(2**63)]})[0] == "Literal[-9223372036854775808] | int"
    assert _argument({"enum": ["a", "a", 1, 1]})[0] == "Literal['a', 1]"
    assert _argument({"enum": []})[0] == "Any"


def test_const_is_a_one_member_literal() -> None:
    assert _argument({"const": "fixed"})[0] == "Literal['fixed']"
    assert _argument({"const": None})[0] == "None"


def test_any_of_one_of_and_type_lists_are_unions() -> None:
    either: FrozenJson = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert _argument(either)[0] == "str | None"
    assert _argument({"oneOf": [{"type": "integer"}, {"type": "boolean"}]})[0] == "int | bool"
    assert _argument({"type": ["string", "integer", "string"]})[0] == "str | int"
    assert _argument({"anyOf": [{"type": "string"}, {}]})[0] == "Any"


def test_all_of_with_one_branch_is_that_branch_else_any() -> None:
    assert _argument({"allOf": [{"type": "string"}]})[0] == "str"
    assert _argument({"allOf": [{"type": "string"}, {"minLength": 1}]})[0] == "Any"


def test_refs_to_defs_and_definitions_resolve() -> None:
    address: FrozenJson = {"type": "object", "properties": {"city": {"type": "string"}}}
    annotation, text = _argument({"$ref": "#/$defs/Address"}, defs={"Address": address})
    assert annotation == "Address"
    assert _classes(text) == {"Address": ["city: NotRequired[str]"]}
    parameters: FrozenJson = {
        "type": "object",
        "properties": {"x": {"$ref": "#/definitions/Colour"}},
        "definitions": {"Colour": {"enum": ["red", "green"]}},
    }
    text = code_stubs([_tool(parameters)]).text
    assert stub_functions(text)["tool"].optional == ("x",)
    assert 'x: Literal["red", "green"] = ...,' in text


def test_a_def_used_twice_is_declared_once() -> None:
    address: FrozenJson = {"type": "object", "properties": {"city": {"type": "string"}}}
    schema: FrozenJson = {
        "type": "array",
        "items": {"anyOf": [{"$ref": "#/$defs/Address"}, {"$ref": "#/$defs/Address"}]},
    }
    annotation, text = _argument(schema, defs={"Address": address})
    assert annotation == "list[Address]"
    assert list(_classes(text)) == ["Address"]


def test_tools_sharing_a_model_share_its_declaration() -> None:
    options: FrozenJson = {"type": "object", "properties": {"follow": {"type": "boolean"}}}
    other: FrozenJson = {"type": "object", "properties": {"follow": {"type": "string"}}}

    def uses(defs: FrozenJson, name: str) -> StubTool:
        reference: FrozenJson = {"$ref": "#/$defs/Options"}
        output: FrozenJson = {"$ref": "#/$defs/Options", "$defs": defs}
        return _tool({"properties": {"o": reference}, "$defs": defs}, output, name=name)

    stubs = code_stubs(
        [
            uses({"Options": options}, "a"),
            uses({"Options": options}, "b"),
            uses({"Options": other}, "c"),
        ]
    )
    assert _classes(stubs.text) == {
        "Options": ["follow: NotRequired[bool]"],
        "Options_2": ["follow: NotRequired[str]"],
    }
    functions = stub_functions(stubs.text)
    assert [functions[n].returns for n in "abc"] == ["Options", "Options", "Options_2"]


def test_self_referencing_models_are_not_shared() -> None:
    node: FrozenJson = {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}
    tools = [
        _tool({"properties": {"n": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": node}}, name=n)
        for n in "ab"
    ]
    assert _classes(code_stubs(tools).text) == {
        "Node": ["next: NotRequired['Node']"],
        "Node_2": ["next: NotRequired['Node_2']"],
    }


def test_a_self_referencing_class_uses_a_forward_reference() -> None:
    node: FrozenJson = {
        "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
    }
    annotation, text = _argument({"$ref": "#/$defs/Node"}, defs={"Node": node})
    assert annotation == "Node"
    assert _classes(text) == {"Node": ["kids: NotRequired[list['Node']]"]}


def test_mutually_recursive_classes_are_declared_before_use_or_forward_referenced() -> None:
    defs: FrozenJson = {
        "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
        "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}},
    }
    annotation, text = _argument({"$ref": "#/$defs/A"}, defs=defs)
    assert annotation == "A"
    assert _classes(text) == {"B": ["a: NotRequired['A']"], "A": ["b: NotRequired[B]"]}


def test_a_cycle_through_no_class_is_any() -> None:
    defs: FrozenJson = {"L": {"type": "array", "items": {"$ref": "#/$defs/L"}}}
    assert _argument({"$ref": "#/$defs/L"}, defs=defs)[0] == "list[Any]"
    loop: FrozenJson = {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}
    assert _argument({"$ref": "#/$defs/A"}, defs=loop)[0] == "Any"


def test_a_ref_to_the_root_is_a_class_named_after_the_tool() -> None:
    tree: FrozenJson = {
        "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}},
    }
    stubs = code_stubs([_tool(tree, name="walk")])
    assert _classes(stubs.text) == {"WalkArguments": ["kids: NotRequired[list['WalkArguments']]"]}
    assert stub_functions(stubs.text)["walk"].optional == ("kids",)


@pytest.mark.parametrize(
    "reference", ["#/$defs/Missing", "other.json#/$defs/A", "#anchor", "#/$defs/A/x/0", "#/x/9"]
)
def test_refs_that_do_not_resolve_here_are_any(reference: str) -> None:
    defs: FrozenJson = {"A": {"type": "string"}}
    assert _argument({"$ref": reference}, defs=defs)[0] == "Any"


def test_output_types_follow_the_same_rules_and_no_output_is_any() -> None:
    output: FrozenJson = {"type": "object", "properties": {"text": {"type": "string"}}}
    stubs = code_stubs([_tool({}, output, name="read"), _tool({}, name="plain")])
    functions = stub_functions(stubs.text)
    assert functions["read"].returns == "ReadOutput"
    assert functions["plain"].returns == "Any"
    assert _classes(stubs.text) == {"ReadOutput": ["text: NotRequired[str]"]}
    listed = code_stubs([_tool({}, {"type": "array", "items": {"type": "integer"}})])
    assert stub_functions(listed.text)["tool"].returns == "list[int]"


@pytest.mark.parametrize("key", ["a-b", "class", "match", "type", "_", "__private", "3d", "é"])
def test_keys_that_cannot_be_class_fields_use_the_functional_syntax(key: str) -> None:
    schema: FrozenJson = {"type": "object", "properties": {key: {"type": "string"}}}
    text = _argument(schema)[1]
    assert "ToolX = TypedDict(" in text
    assert _classes(text) == {"ToolX": [f"{key}: NotRequired[str]"]}


def test_a_key_that_would_shadow_a_type_it_uses_uses_the_functional_syntax() -> None:
    schema: FrozenJson = {
        "type": "object",
        "properties": {"str": {"type": "integer"}, "name": {"type": "string"}},
    }
    text = _argument(schema)[1]
    assert "ToolX = TypedDict(" in text
    plain: FrozenJson = {"type": "object", "properties": {"id": {"type": "integer"}}}
    assert "class ToolX(TypedDict):" in _argument(plain)[1]


def test_descriptions_become_comments_on_one_line() -> None:
    schema: FrozenJson = {
        "type": "object",
        "description": "A place.\nclass Evil: pass",
        "properties": {"city": {"type": "string", "description": "Its name.\n\x00import os"}},
    }
    text = _argument(schema)[1]
    assert "# A place.\\nclass Evil: pass" in text
    assert "city: NotRequired[str]  # Its name.\\n\\x00import os" in text
    assert "Evil" not in _classes(text)


# --- functions and arguments ----------------------------------------------------------------


def test_each_tool_is_a_keyword_only_async_def_with_its_description() -> None:
    parameters: FrozenJson = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["path"],
        "additionalProperties": {"type": "string"},
    }
    stubs = code_stubs([_tool(parameters, name="read", description="Read a file.")])
    function = stub_functions(stubs.text)["read"]
    assert (function.required, function.optional, function.positional) == (
        ("path",),
        ("limit",),
        0,
    )
    assert function.docstring == "Read a file."
    assert dict(stubs.functions) == {"read": "read"}
    assert dict(stubs.arguments["read"]) == {"path": "path", "limit": "limit"}


def test_a_tool_without_properties_takes_no_arguments() -> None:
    stubs = code_stubs([_tool({"type": "object"}, name="now")])
    assert "async def now() -> Any:" in stubs.text
    assert dict(stubs.arguments["now"]) == {}


def test_root_refs_of_the_parameters_are_followed() -> None:
    parameters: FrozenJson = {
        "$ref": "#/$defs/Args",
        "$defs": {"Args": {"type": "object", "properties": {"q": {"type": "string"}}}},
    }
    function = stub_functions(code_stubs([_tool(parameters)]).text)["tool"]
    assert function.optional == ("q",)


def test_hostile_schema_shapes_give_no_arguments_rather_than_failing() -> None:
    shapes: list[FrozenJson] = [[], "text", 3, None, {"properties": []}, {"$ref": "#/$defs/No"}]
    for parameters in shapes:
        stubs = code_stubs([_tool(parameters)])
        assert stub_functions(stubs.text)["tool"].required == ()


def test_the_mappings_are_read_only() -> None:
    stubs = code_stubs([_tool({})])
    with pytest.raises(TypeError):
        stubs.functions["x"] = "y"  # type: ignore[index]
    assert isinstance(stubs, CodeStubs)


# --- names ----------------------------------------------------------------------------------


def test_identifiers_keep_usable_names_and_suffix_collisions_in_any_order() -> None:
    names = ["read-file", "read_file", "3d", "-3d", "_x", "class", "match", "print", "Any"]
    first = code_stubs([_tool({}, name=n) for n in names])
    second = code_stubs([_tool({}, name=n) for n in reversed(names)])
    assert dict(first.functions) == dict(second.functions)
    assert dict(first.functions) == {
        "read_file": "read_file",
        "read_file_2": "read-file",
        "tool_3d": "-3d",
        "tool_3d_2": "3d",
        "tool_x": "_x",
        "class_": "class",
        "match_": "match",
        "print_": "print",
        "Any_": "Any",
    }


def test_function_names_avoid_keywords_builtins_imports_and_underscores() -> None:
    reserved = [*keyword.kwlist, *keyword.softkwlist, *dir(builtins)]
    usable = (n for n in reserved if all(c.isalnum() or c in "_-" for c in n))
    names = list(dict.fromkeys([*usable, "TypedDict", "NotRequired", "Literal", "typing"]))
    stubs = code_stubs([_tool({}, name=n) for n in names])
    assert sorted(stubs.functions.values()) == sorted(names)
    for identifier in stubs.functions:
        assert identifier.isidentifier()
        assert not identifier.startswith("_")
        assert identifier not in names
    assert list(stub_functions(stubs.text)) == list(stubs.functions)


def test_type_names_never_take_a_function_or_import_name() -> None:
    defs: FrozenJson = {
        "TypedDict": {"type": "object", "properties": {"a": {"type": "string"}}},
        "Tool": {"type": "object", "properties": {"b": {"$ref": "#/$defs/TypedDict"}}},
    }
    annotation, text = _argument({"$ref": "#/$defs/Tool"}, defs=defs)
    parameters: FrozenJson = {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/Tool"}},
        "$defs": defs,
    }
    stubs = code_stubs([_tool(parameters, name="Tool"), _tool({}, name="tool")])
    assert set(_classes(stubs.text)) == {"TypedDict_", "Tool_2"}
    assert set(stubs.functions) == {"Tool", "tool"}
    assert annotation == "Tool"
    assert set(_classes(text)) == {"TypedDict_", "Tool"}


def test_argument_names_avoid_hard_keywords_only_and_collisions_are_suffixed() -> None:
    keys = ["class", "type", "id", "a-b", "a_b", "3", "_", "from"]
    parameters: FrozenJson = {"type": "object", "properties": {k: {} for k in keys}}
    stubs = code_stubs([_tool(parameters)])
    assert dict(stubs.arguments["tool"]) == {
        "class_": "class",
        "type": "type",
        "id": "id",
        "a_b_2": "a-b",
        "a_b": "a_b",
        "_3": "3",
        "_": "_",
        "from_": "from",
    }
    assert stub_functions(stubs.text)["tool"].optional == tuple(stubs.arguments["tool"])


def test_two_tools_with_one_name_are_refused() -> None:
    with pytest.raises(ValueError, match="'twice'"):
        code_stubs([_tool({}, name="twice"), _tool({}, name="twice")])


# --- hostile text ---------------------------------------------------------------------------

HOSTILE = [
    "",
    '"',
    '"""',
    '""""""',
    'ends in a quote"',
    "\\",
    'back\\"slash',
    "line\n    async def evil(): ...\nmore",
    "nul\x00 cr\r tab\t ff\x0c sep\u2028 bom\ufeff",
    "surrogate \ud800 and \udfff",
    "astral \U0001f600 and \U000e0001",
    "\n\n  indented\n",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_descriptions_round_trip_as_docstrings(text: str) -> None:
    stubs = code_stubs([_tool({}, name="t", description=text), _tool({}, name="u")])
    functions = stub_functions(stubs.text)
    assert list(functions) == ["t", "u"]
    assert functions["t"].docstring == text
    stubs.text.encode()  # printable UTF-8: no lone surrogate in the source


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_enum_strings_round_trip_as_literals(text: str) -> None:
    annotation = _argument({"enum": [text]})[0]
    literal = ast.parse(annotation, mode="eval").body
    assert isinstance(literal, ast.Subscript)
    assert ast.literal_eval(literal.slice) == text


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_keys_round_trip_through_the_argument_mapping(text: str) -> None:
    parameters: FrozenJson = {"type": "object", "properties": {text: {"type": "string"}}}
    stubs = code_stubs([_tool(parameters)])
    (identifier,) = stubs.arguments["tool"]
    assert identifier.isidentifier()
    assert stubs.arguments["tool"][identifier] == text


def test_the_same_tools_give_the_same_text() -> None:
    tools = [_tool({"type": "object", "properties": {"a-b": {"enum": ["x"]}}}, name="n-1")]
    assert code_stubs(tools) == code_stubs(list(tools))


# --- bounds ---------------------------------------------------------------------------------


def test_deep_schemas_fall_back_to_any() -> None:
    schema: FrozenJson = {"type": "string"}
    for _ in range(200):
        schema = {"type": "array", "items": schema}
    annotation = _argument(schema)[0]
    assert annotation.count("list[") <= 17
    assert annotation.endswith("Any" + "]" * annotation.count("list["))


def test_a_self_containing_python_object_terminates() -> None:
    looping: dict[str, FrozenJson] = {"type": "array"}
    looping["items"] = looping
    assert _argument(looping)[0].count("list[") <= 17


def test_shared_refs_cannot_blow_the_text_up_exponentially() -> None:
    defs: dict[str, FrozenJson] = {"D0": {"enum": ["x" * 50, "y" * 50]}}
    for level in range(1, 8):
        below: FrozenJson = {"$ref": f"#/$defs/D{level - 1}"}
        listed: FrozenJson = {"type": "array", "items": below}
        mapped: FrozenJson = {"type": "object", "additionalProperties": below}
        defs[f"D{level}"] = {"anyOf": [below, listed, mapped]}  # each level triples the text
    text = _argument({"$ref": "#/$defs/D7"}, defs=defs)[1]
    assert len(text) < 40_000


def test_many_properties_are_bounded_by_the_node_budget() -> None:
    properties: dict[str, FrozenJson] = {f"p{i}": {"type": "string"} for i in range(6000)}
    parameters: FrozenJson = {"type": "object", "properties": properties}
    text = code_stubs([_tool(parameters)]).text
    function = stub_functions(text)["tool"]
    assert len(function.optional) == 6000  # every property stays an argument
    assert text.count(": Any = ...") > 0  # past the budget they are typed Any


def test_a_class_past_the_text_budget_is_declared_a_plain_dict_under_its_name() -> None:
    properties: dict[str, FrozenJson] = {f"key_{i:04}_{'k' * 30}": {} for i in range(1200)}
    properties["kids"] = {"type": "array", "items": {"$ref": "#/$defs/Node"}}
    node: FrozenJson = {"type": "object", "properties": properties}
    annotation, text = _argument({"$ref": "#/$defs/Node"}, defs={"Node": node})
    assert annotation == "Node"
    assert "Node = dict[str, Any]" in text
    assert "class Node" not in text


@pytest.mark.parametrize("module", SANDBOX_MODULES)
def test_a_tool_named_like_a_module_the_program_may_import_takes_another_name(
    module: str,
) -> None:
    stubs = code_stubs([StubTool(module, "A tool.", {"type": "object", "properties": {}})])
    (identifier,) = stubs.functions
    assert identifier != module  # `import time` in the program would hide the tool
    assert stubs.functions[identifier] == module
