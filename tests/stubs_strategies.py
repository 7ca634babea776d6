"""Hypothesis strategies for Code Mode stubs: tool names, hostile text and JSON Schema shapes."""

from __future__ import annotations

from typing import Final

from hypothesis import strategies as st

from toolfx.core import FrozenJson, StubTool

__all__ = ["hostile_text", "schemas", "stub_tools", "tool_names"]

TYPES: Final = ("string", "integer", "number", "boolean", "null", "array", "object", "other")
DEF_KEYS: Final = ("Node", "TypedDict", "A", "a-b", "3d", "")

hostile_text = st.text(st.characters(exclude_categories=()), max_size=40)
"""Any text, lone surrogates, NUL and line separators included."""

tool_names = st.from_regex(r"[A-Za-z0-9_-]{1,64}", fullmatch=True) | st.sampled_from(
    ("read-file", "read_file", "class", "print", "Any", "_", "-", "3d", "asyncio", "__init__")
)
"""Valid tool names, with the ones that collide or clash over-represented."""

keys = hostile_text | st.sampled_from(("class", "a-b", "a_b", "type", "str", "x", "__x", "_"))
scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | hostile_text
references = st.sampled_from(("#", "#/$defs/", "#/definitions/", "#/properties/")).flatmap(
    lambda prefix: st.sampled_from(DEF_KEYS).map(lambda key: {"$ref": prefix + key})
)
leaves: st.SearchStrategy[FrozenJson] = st.one_of(
    st.sampled_from(TYPES).map(lambda kind: {"type": kind}),
    st.just({}),
    st.booleans(),
    st.lists(scalars, max_size=4).map(lambda members: {"enum": members}),
    scalars.map(lambda value: {"const": value}),
    references,
    st.lists(st.sampled_from(TYPES), min_size=1, max_size=3).map(lambda kinds: {"type": kinds}),
)


def _nested(children: st.SearchStrategy[FrozenJson]) -> st.SearchStrategy[FrozenJson]:
    properties = st.dictionaries(keys, children, max_size=4)
    return st.one_of(
        st.builds(lambda items: {"type": "array", "items": items}, children),
        st.builds(
            lambda props, required, text: {
                "type": "object",
                "properties": props,
                "required": [k for k in props if k in required],
                "description": text,
            },
            properties,
            st.sets(keys, max_size=3),
            hostile_text,
        ),
        st.lists(children, max_size=3).map(lambda branches: {"anyOf": branches}),
        st.lists(children, max_size=3).map(lambda branches: {"oneOf": branches}),
        st.lists(children, min_size=1, max_size=2).map(lambda branches: {"allOf": branches}),
        children.map(lambda extra: {"type": "object", "additionalProperties": extra}),
    )


schemas: st.SearchStrategy[FrozenJson] = st.recursive(leaves, _nested, max_leaves=12)
"""Schema shapes the stubs meet: every type rule, nested, with references that may cycle."""


@st.composite
def _parameters(draw: st.DrawFn) -> FrozenJson:
    properties = draw(st.dictionaries(keys, schemas, max_size=5))
    defs = draw(st.dictionaries(st.sampled_from(DEF_KEYS), schemas, max_size=4))
    required = [k for k in properties if draw(st.booleans())]
    kind = draw(st.sampled_from(("object", "plain", "ref")))
    if kind == "ref":
        defs = {**defs, "Node": {"type": "object", "properties": properties}}
        return {"$ref": "#/$defs/Node", "$defs": defs, "definitions": defs}
    root: dict[str, FrozenJson] = {"properties": properties, "required": required}
    return {**root, "type": "object", "$defs": defs} if kind == "object" else root


def stub_tools(max_size: int = 6) -> st.SearchStrategy[list[StubTool]]:
    """Tools with distinct valid names, any descriptions and random schemas."""
    tool = st.builds(
        StubTool,
        name=tool_names,
        description=hostile_text,
        parameters=_parameters(),
        output=st.none() | schemas,
    )
    return st.lists(tool, max_size=max_size, unique_by=lambda t: t.name)
