"""Reading generated Code Mode stubs back with `ast`: their functions, arguments and docstrings."""

from __future__ import annotations

import ast
from dataclasses import dataclass

__all__ = ["StubFunction", "stub_functions"]


@dataclass(frozen=True, slots=True)
class StubFunction:
    """One top-level `async def` of a stub module as the parser sees it."""

    required: tuple[str, ...]
    optional: tuple[str, ...]
    positional: int
    docstring: str | None
    returns: str


def stub_functions(text: str) -> dict[str, StubFunction]:
    """Every top-level `async def` of `text` by name (asserting each name occurs once)."""
    found: dict[str, StubFunction] = {}
    for node in ast.parse(text).body:
        if not isinstance(node, ast.AsyncFunctionDef):
            continue
        assert node.name not in found, node.name
        arguments = node.args
        pairs = list(zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True))
        assert all(d is None or ast.unparse(d) == "..." for _, d in pairs)
        returns = ast.unparse(node.returns) if node.returns is not None else ""
        found[node.name] = StubFunction(
            required=tuple(a.arg for a, d in pairs if d is None),
            optional=tuple(a.arg for a, d in pairs if d is not None),
            positional=len(arguments.posonlyargs)
            + len(arguments.args)
            + (arguments.vararg is not None)
            + (arguments.kwarg is not None),
            docstring=ast.get_docstring(node, clean=False),
            returns=returns,
        )
    return found
