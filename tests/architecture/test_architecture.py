"""The import rules hold over the real tree, and each rule catches the import that breaks it."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest

from tests.architecture.imports import MAX_CHAIN, Tree, chain, load_tree, violations

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tree() -> Tree:
    return load_tree(ROOT)


def test_the_tree_keeps_every_rule(tree: Tree) -> None:
    assert violations(tree) == []


@pytest.mark.parametrize("distribution", ["toolfx.core", "toolfx.leaves", "toolfx.interpreters"])
def test_no_import_chain_is_longer_than_the_limit(tree: Tree, distribution: str) -> None:
    longest = chain(tree, distribution)
    assert 2 <= len(longest) <= MAX_CHAIN, longest


def _add_line(tree: Tree, module: str, line: str) -> Tree:
    source, _ = tree.sources[module]
    return tree.with_source(module, f"{line}\n{source}")


FORBIDDEN_LINES: Final = [
    # each forbidden import is named
    (
        "toolfx.core.json._model",
        "from toolfx.core.pipeline import execute",
        "core's layers import only downwards",
    ),
    (
        "toolfx.core.records._wire",
        "from toolfx.core.registry import Catalog",
        "packages of one layer are independent",
    ),
    ("toolfx.core.tools._results", "import asyncio", "core performs no IO"),
    ("toolfx.core.runtime._cancel", "import time", "core performs no IO"),
    ("toolfx.core.schema._decode", "import anyio", "core performs no IO"),
    (
        "toolfx.core.tools._content",
        "from toolfx.leaves import Workspace",
        "core imports no other distribution",
    ),
    (
        "toolfx.leaves.bash",
        "from toolfx.interpreters import SyncRuntime",
        "leaves and interpreters never import each other",
    ),
    (
        "toolfx.interpreters.sync",
        "from toolfx.leaves.workspace import Workspace",
        "leaves and interpreters never import each other",
    ),
    (
        "toolfx.leaves.read",
        "from toolfx.core.json._model import FrozenJson",
        "a private module is imported only from inside toolfx.core.json",
    ),
    (
        "toolfx.interpreters.cli._runner",
        "from toolfx.interpreters.testing._clock import VirtualClock",
        "a private module is imported only from inside toolfx.interpreters.testing",
    ),
    (
        "toolfx.core.pipeline._call",
        "from toolfx.core.tools import _results",
        "a private module is imported only from inside toolfx.core.tools",
    ),
    (
        "toolfx.core.tools._definition",
        "from toolfx.core import ToolFailure",
        "a layer never imports the package root",
    ),
    # an import nested in any statement is seen
    ("toolfx.core.runtime._cancel", "for _ in ():\n    import asyncio", "core performs no IO"),
    ("toolfx.core.tools._results", "while False:\n    import trio", "core performs no IO"),
    (
        "toolfx.core.schema._decode",
        "async def _f():\n    async with _x:\n        import anyio",
        "core performs no IO",
    ),
    (
        "toolfx.leaves.grep",
        "match 0:\n    case _:\n        from toolfx.interpreters import SyncRuntime",
        "leaves and interpreters never import each other",
    ),
    (
        "toolfx.core.json._model",
        "try:\n    pass\nexcept* OSError:\n    import subprocess",
        "core performs no IO",
    ),
    (
        "toolfx.core.json._text",
        "if TYPE_CHECKING:\n    pass\nelse:\n    from toolfx.core.tools import ToolFailure",
        "core's layers import only downwards",
    ),
    (
        "toolfx.core.json._text",
        "if TYPE_CHECKING:\n    for _ in ():\n        from toolfx.core.tools import _results",
        "a private module is imported only from inside toolfx.core.tools",
    ),
    # a relative import is checked as the module it names
    (
        "toolfx.core.json._model",
        "from ..pipeline import execute",
        "imports toolfx.core.pipeline: core's layers import only downwards",
    ),
    (
        "toolfx.core.json",
        "from ..pipeline import execute",
        "imports toolfx.core.pipeline: core's layers import only downwards",
    ),
    (
        "toolfx.core.tools._definition",
        "from .. import ToolFailure",
        "imports toolfx.core: a layer never imports the package root",
    ),
    (
        "toolfx.leaves.read",
        "from .mcp._link import McpLink",
        "a private module is imported only from inside toolfx.leaves.mcp",
    ),
    (
        "toolfx.core.pipeline._call",
        "from ..tools import _results",
        "a private module is imported only from inside toolfx.core.tools",
    ),
    # a constant dynamic import is an import
    (
        "toolfx.leaves.bash",
        'importlib.import_module("toolfx.interpreters")',
        "leaves and interpreters never import each other",
    ),
    (
        "toolfx.interpreters.sync",
        'def _late():\n    return __import__("toolfx.leaves.workspace")',
        "leaves and interpreters never import each other",
    ),
    ("toolfx.core.runtime._cell", 'import_module("threading")', "core performs no IO"),
    (
        "toolfx.leaves.read",
        'importlib.import_module("toolfx.core.json._model")',
        "a private module is imported only from inside toolfx.core.json",
    ),
    # a module imported by name from its package is that module
    (
        "toolfx.leaves.grep",
        "from toolfx import interpreters",
        "imports toolfx.interpreters: leaves and interpreters never import each other",
    ),
    (
        "toolfx.interpreters.anyio._runtime",
        "from toolfx import leaves",
        "imports toolfx.leaves: leaves and interpreters never import each other",
    ),
    (
        "toolfx.core.tools._content",
        "from toolfx import leaves",
        "imports toolfx.leaves: core imports no other distribution",
    ),
    (
        "toolfx.core.json._model",
        "from toolfx.core import pipeline",
        "imports toolfx.core.pipeline: core's layers import only downwards",
    ),
    # a public module lists its names in one literal all
    (
        "toolfx.leaves.glob",
        '__all__ += ["GlobInput"]',
        "a public module lists its names in __all__",
    ),
    (
        "toolfx.leaves.read",
        '__all__.extend(["ReadInput"])',
        "a public module lists its names in __all__",
    ),
    (
        "toolfx.interpreters.sync",
        "__all__ = [*_NAMES]",
        "a public module lists its names in __all__",
    ),
    ("toolfx.core.plaintext", '__all__ = ["Edit"]', "a public module lists its names in __all__"),
    # a private name is imported only inside its package
    (
        "toolfx.leaves.read",
        "from toolfx.core.json import _describe",
        "imports toolfx.core.json: a private name (_describe) stays inside its package",
    ),
    (
        "toolfx.interpreters.anyio._runtime",
        "from toolfx.interpreters.sync import _helper",
        "a private name (_helper) stays inside its package",
    ),
    (
        "toolfx.core.tools._content",
        "from toolfx.core.json._snapshot import _describe",
        "a private module is imported only from inside toolfx.core.json",
    ),
    (
        "toolfx.leaves.read",
        "import toolfx.core.json._model",
        "a private module is imported only from inside toolfx.core.json",
    ),
    (
        "toolfx.leaves.read",
        "from toolfx.core.json import _model as model",
        "a private module is imported only from inside toolfx.core.json",
    ),
    # a face holds no code
    ("toolfx.leaves.mcp", "LIMIT = 3", "a face holds no code"),
    ("toolfx.core.json", "def helper() -> None:\n    pass", "a face holds no code"),
    ("toolfx.interpreters.testing", "class Extra:\n    pass", "a face holds no code"),
    ("toolfx.interpreters.cli", "print(main)", "a face holds no code"),
    # core reaches no clock randomness or file
    ("toolfx.core.runtime._cancel", "import datetime", "core performs no IO"),
    ("toolfx.core.tools._naming", "from random import choice", "core performs no IO"),
    ("toolfx.core.registry._model", "import uuid", "core performs no IO"),
    ("toolfx.core.pipeline._batch", "from queue import Queue", "core performs no IO"),
    ("toolfx.core.providers._openai", "from http import client", "core performs no IO"),
    ("toolfx.core.jsonschema._refs", "from urllib import request", "core performs no IO"),
    ("toolfx.core.jsonschema._refs", "import urllib.request", "core performs no IO"),
    ("toolfx.core.records._wire", "import sqlite3", "core performs no IO"),
    ("toolfx.core.runtime._cell", "import _thread", "core performs no IO"),
    ("toolfx.core.plaintext._diff", "import mmap", "core performs no IO"),
    (
        "toolfx.core.records._wire",
        'def _load() -> str:\n    return open("x").read()',
        "calls open: core performs no IO",
    ),
]
"""(module, a line added to it, the rule its violation must name): each class of import in turn."""


@pytest.mark.parametrize(("module", "line", "rule"), FORBIDDEN_LINES)
def test_each_forbidden_line_is_named(tree: Tree, module: str, line: str, rule: str) -> None:
    found = violations(_add_line(tree, module, line))
    assert any(module in v and rule in v for v in found), found


@pytest.mark.parametrize("module", ["toolfx.core.helpers", "toolfx.core._shared"])
def test_a_core_module_outside_the_layers_is_named(tree: Tree, module: str) -> None:
    grown = tree.with_source(module, '"""Helpers."""\n\n__all__: list[str] = []\n')
    found = violations(grown)
    assert any(module in v and "not in a layer" in v for v in found), found


def test_a_public_module_without_all_is_named(tree: Tree) -> None:
    found = violations(tree.with_source("toolfx.leaves.extra", '"""A public module."""\n'))
    rule = "a public module lists its names in __all__ (it has no __all__)"
    assert any("toolfx.leaves.extra" in v and rule in v for v in found), found


def test_an_aliased_re_export_still_has_one_home(tree: Tree) -> None:
    source, _ = tree.sources["toolfx.core.records"]
    doubled = source.replace("__all__ = [", '__all__ = [\n    "Failure",', 1)
    doubled = "from toolfx.core.tools import ToolFailure as Failure\n" + doubled
    found = violations(tree.with_source("toolfx.core.records", doubled))
    assert any(
        "ToolFailure" in v and "more than one home" in v and "toolfx.core.records.Failure" in v
        for v in found
    ), found


def test_a_private_name_moves_freely_inside_its_package(tree: Tree) -> None:
    module = "toolfx.core.json._text"
    found = violations(_add_line(tree, module, "from toolfx.core.json._snapshot import _describe"))
    assert [v for v in found if module in v] == []


def test_a_name_exported_by_two_faces_has_two_homes(tree: Tree) -> None:
    source, _ = tree.sources["toolfx.core.records"]
    doubled = source.replace("__all__ = [", '__all__ = [\n    "ToolFailure",', 1)
    doubled = "from toolfx.core.tools import ToolFailure\n" + doubled
    found = violations(tree.with_source("toolfx.core.records", doubled))
    assert any("ToolFailure" in v and "more than one home" in v for v in found), found


def test_too_many_public_modules_are_counted(tree: Tree) -> None:
    grown = tree
    for index in range(40):
        grown = grown.with_source(f"toolfx.leaves.extra{index}", '"""A public module."""\n')
    found = violations(grown)
    assert any("toolfx.leaves:" in v and "at most a third" in v for v in found), found


def test_a_longer_chain_is_caught(tree: Tree) -> None:
    grown = tree
    previous = "toolfx.core.json._model"
    for index in range(MAX_CHAIN):
        name = f"toolfx.core.json._step{index}"
        grown = grown.with_source(name, f"from {previous} import STEP as _\nSTEP = {index}\n")
        previous = name
    longest = chain(grown, "toolfx.core")
    assert len(longest) > MAX_CHAIN
    assert any("an import chain of" in v for v in violations(grown))


def _stepped(tree: Tree, import_line: str) -> Tree:
    """`tree` with a chain of `MAX_CHAIN` new core modules, each importing the one before."""
    grown = tree
    previous = "toolfx.core.json._model"
    for index in range(MAX_CHAIN):
        name = f"toolfx.core.json._step{index}"
        source = "import typing\nfrom typing import TYPE_CHECKING\n"
        source += import_line.format(previous=previous) + f"\nSTEP = {index}\n"
        grown = grown.with_source(name, source)
        previous = name
    return grown


@pytest.mark.parametrize(
    "guarded",
    [
        "if TYPE_CHECKING:\n    from {previous} import STEP",
        "if typing.TYPE_CHECKING:\n    for _ in ():\n        from {previous} import STEP",
    ],
)
def test_type_only_imports_do_not_lengthen_a_chain(tree: Tree, guarded: str) -> None:
    grown = _stepped(tree, guarded)
    assert len(chain(grown, "toolfx.core")) == len(chain(tree, "toolfx.core"))


@pytest.mark.parametrize(
    "unguarded",
    [
        "if TYPE_CHECKING:\n    pass\nelse:\n    from {previous} import STEP",
        "if not TYPE_CHECKING:\n    from {previous} import STEP",
        "if TYPE_CHECKING or True:\n    from {previous} import STEP",
    ],
)
def test_only_the_body_of_if_type_checking_is_type_only(tree: Tree, unguarded: str) -> None:
    assert len(chain(_stepped(tree, unguarded), "toolfx.core")) > MAX_CHAIN
