"""The import rules hold over the real tree, and each rule catches the import that breaks it."""

from __future__ import annotations

from pathlib import Path

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


@pytest.mark.parametrize(
    ("module", "line", "rule"),
    [
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
    ],
)
def test_each_forbidden_import_is_named(tree: Tree, module: str, line: str, rule: str) -> None:
    found = violations(_add_line(tree, module, line))
    assert any(module in v and rule in v for v in found), found


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


def test_type_only_imports_do_not_lengthen_a_chain(tree: Tree) -> None:
    grown = tree
    previous = "toolfx.core.json._model"
    for index in range(MAX_CHAIN):
        name = f"toolfx.core.json._step{index}"
        source = "from typing import TYPE_CHECKING\n"
        source += f"if TYPE_CHECKING:\n    from {previous} import STEP\nSTEP = {index}\n"
        grown = grown.with_source(name, source)
        previous = name
    assert len(chain(grown, "toolfx.core")) == len(chain(tree, "toolfx.core"))
