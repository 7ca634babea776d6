"""The import rules of the three distributions, checked over their sources with `ast`.

A `Tree` is every module's name and source; `violations(tree)` lists every broken rule as a
sentence naming the module, the import and the rule, so a test (and a test of the test, over a
tree with one forbidden import added) can assert on it.

The rules (docs/architecture.md explains them):
- core's subpackages form layers; a module imports only from its own layer or the ones below.
- core performs no IO: it imports no module that reaches files, processes, threads, clocks or an
  event loop.
- leaves and interpreters never import each other.
- a private module (a name with a leading underscore) is imported only from inside the package
  that holds it; everyone else goes through a public face.
- every public name has one home: at most one public module besides the distribution root
  exports it.
- at most a third of a distribution's modules are public.
- the longest chain of imports that run when a module is imported (type-only imports excluded;
  a face's re-export counts as an import of the module that defines the name) is at most
  `MAX_CHAIN` modules.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["MAX_CHAIN", "Tree", "chain", "load_tree", "violations"]

DISTRIBUTIONS: Final = {
    "toolfx.core": "core/src",
    "toolfx.leaves": "leaves/src",
    "toolfx.interpreters": "interpreters/src",
}
OTHER_PACKAGES: Final = {"toolfx.testing": "toolfx.interpreters"}
"""Top-level packages a distribution ships besides its own (the kit ships with interpreters)."""

CORE_LAYERS: Final = (
    ("json", "plaintext"),
    ("jsonschema",),
    ("schema",),
    ("runtime",),
    ("tools",),
    ("records", "registry"),
    ("pipeline", "providers"),
)
"""core's subpackages bottom up; a layer's packages are independent of one another."""

CORE_FORBIDDEN: Final = frozenset(
    {
        "asyncio",
        "anyio",
        "trio",
        "os",
        "io",
        "sys",
        "subprocess",
        "threading",
        "multiprocessing",
        "concurrent",
        "time",
        "socket",
        "select",
        "selectors",
        "signal",
        "shutil",
        "tempfile",
        "pathlib",
        "glob",
        "fcntl",
        "ctypes",
    }
)
"""Modules core never imports: files, processes, threads, clocks, event loops."""

MAX_CHAIN: Final = 8
PUBLIC_SHARE: Final = 1 / 3


@dataclass(frozen=True, slots=True)
class Tree:
    """Every module of the distributions: dotted name -> (source, is a package's `__init__`)."""

    sources: Mapping[str, tuple[str, bool]]

    def with_source(self, module: str, source: str) -> Tree:
        """The same tree with one module's source replaced (or added as a plain module)."""
        package = self.sources.get(module, ("", False))[1]
        return Tree({**self.sources, module: (source, package)})


def load_tree(root: Path) -> Tree:
    """Read every module of the three distributions under the repository `root`."""
    sources: dict[str, tuple[str, bool]] = {}
    for src in DISTRIBUTIONS.values():
        base = root / src
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            package = parts[-1] == "__init__"
            if package:
                parts.pop()
            sources[".".join(parts)] = (path.read_text(encoding="utf-8"), package)
    return Tree(sources)


_BLOCKS: Final = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With)
"""Statements whose bodies may hold a (local) import."""


@dataclass(frozen=True, slots=True)
class _Import:
    """One imported name: the module written, the name (None for `import m`), type-only or not."""

    module: str
    name: str | None
    type_only: bool
    line: int


def _imports(tree: ast.Module) -> Iterator[_Import]:
    """Every absolute import in a module, marking those under `if TYPE_CHECKING:`."""

    def visit(nodes: list[ast.stmt], type_only: bool) -> Iterator[_Import]:
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    yield _Import(node.module, alias.name, type_only, node.lineno)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    yield _Import(alias.name, None, type_only, node.lineno)
            elif isinstance(node, ast.If):
                guarded = type_only or "TYPE_CHECKING" in ast.unparse(node.test)
                yield from visit(node.body, guarded)
                yield from visit(node.orelse, type_only)
            elif isinstance(node, ast.Try):
                for block in (node.body, node.orelse, node.finalbody):
                    yield from visit(block, type_only)
                for handler in node.handlers:
                    yield from visit(handler.body, type_only)
            elif isinstance(node, _BLOCKS):
                yield from visit(node.body, type_only)

    yield from visit(tree.body, False)


@dataclass(frozen=True, slots=True)
class _Module:
    """A parsed module: what it defines, re-imports and imports."""

    name: str
    package: bool
    defines: frozenset[str]
    reimports: Mapping[str, tuple[str, str]]
    imports: tuple[_Import, ...]
    exports: tuple[str, ...]


@functools.cache
def _parse(name: str, source: str, package: bool) -> _Module:
    tree = ast.parse(source)
    defines: set[str] = set()
    exports: tuple[str, ...] = ()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            defines.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == "__all__":
                    exports = tuple(ast.literal_eval(node.value))
                elif isinstance(target, ast.Name):
                    defines.add(target.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defines.add(node.target.id)
    imports = tuple(_imports(tree))
    reimports = {
        i.name: (i.module, i.name) for i in imports if i.name and i.module.startswith("toolfx")
    }
    return _Module(name, package, frozenset(defines), reimports, imports, exports)


@dataclass(frozen=True, slots=True)
class _Graph:
    """The parsed tree with name resolution through faces."""

    modules: Mapping[str, _Module]

    def distribution(self, module: str) -> str | None:
        for top in (*DISTRIBUTIONS, *OTHER_PACKAGES):
            if module == top or module.startswith(top + "."):
                return OTHER_PACKAGES.get(top, top)
        return None

    def defining(self, module: str, name: str | None) -> str | None:
        """The module that defines `name` as imported from `module` (a submodule if it is one)."""
        seen: set[tuple[str, str | None]] = set()
        while module in self.modules and (module, name) not in seen:
            seen.add((module, name))
            if name is None:
                return module
            if f"{module}.{name}" in self.modules:
                return f"{module}.{name}"
            info = self.modules[module]
            if name in info.defines or name not in info.reimports:
                return module
            module, name = info.reimports[name]
        return module if module in self.modules else None

    def is_face(self, module: str) -> bool:
        info = self.modules[module]
        return info.package and not info.defines - {"__getattr__"}

    def runtime_edges(self, module: str) -> frozenset[str]:
        found = {
            self.defining(i.module, i.name)
            for i in self.modules[module].imports
            if not i.type_only and i.module.startswith("toolfx")
        }
        return frozenset(m for m in found if m is not None and m != module)


def _owner(module: str) -> str | None:
    """The package a private module belongs to (None for a public module)."""
    parts = module.split(".")
    for index, part in enumerate(parts):
        if part.startswith("_"):
            return ".".join(parts[:index])
    return None


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) < 3 or parts[:2] != ["toolfx", "core"]:
        return None
    for index, layer in enumerate(CORE_LAYERS):
        if parts[2] in layer:
            return index
    return None


def _graph(tree: Tree) -> _Graph:
    return _Graph({n: _parse(n, s, p) for n, (s, p) in tree.sources.items()})


def chain(tree: Tree, distribution: str) -> tuple[str, ...]:
    """The longest chain of runtime imports between one distribution's own modules."""
    return _chain(_graph(tree), distribution)


def _chain(graph: _Graph, distribution: str) -> tuple[str, ...]:
    own = {m for m in graph.modules if graph.distribution(m) == distribution}
    edges = {
        m: {e for e in graph.runtime_edges(m) if e in own and not graph.is_face(e)} for m in own
    }

    visiting: set[str] = set()

    @functools.cache
    def longest(module: str) -> tuple[str, ...]:
        visiting.add(module)
        best: tuple[str, ...] = (module,)
        for target in edges[module] - visiting:  # a runtime cycle is cut where it closes
            candidate = (module, *longest(target))
            if len(candidate) > len(best):
                best = candidate
        visiting.discard(module)
        return best

    starts = sorted(m for m in own if not graph.is_face(m))
    return max((longest(m) for m in starts), key=len, default=())


def violations(tree: Tree) -> list[str]:
    """Every broken rule in `tree`, one sentence each."""
    graph = _graph(tree)
    found: list[str] = []
    for name, info in graph.modules.items():
        found.extend(_import_violations(graph, name, info))
    found.extend(_home_violations(graph))
    for distribution in DISTRIBUTIONS:
        found.extend(_shape_violations(graph, distribution))
    return found


def _import_violations(graph: _Graph, name: str, info: _Module) -> Iterator[str]:
    here = graph.distribution(name)
    layer = _layer(name)
    for imported in info.imports:
        where = f"{name} (line {imported.line}) imports {imported.module}"
        top = imported.module.split(".")[0]
        if here == "toolfx.core" and top in CORE_FORBIDDEN:
            yield f"{where}: core performs no IO (no files, processes, threads, clocks, loops)"
        if not imported.module.startswith("toolfx"):
            continue
        there = graph.distribution(imported.module)
        if {here, there} == {"toolfx.leaves", "toolfx.interpreters"}:
            yield f"{where}: leaves and interpreters never import each other"
        if here == "toolfx.core" and there not in (None, "toolfx.core"):
            yield f"{where}: core imports no other distribution"
        target = imported.module
        if imported.name is not None and f"{target}.{imported.name}" in graph.modules:
            target = f"{target}.{imported.name}"
        owner = _owner(target)
        if owner is not None and not _inside(name, owner):
            yield f"{where}: a private module is imported only from inside {owner}"
        their_layer = _layer(target)
        if layer is not None and their_layer is not None:
            if their_layer > layer:
                yield f"{where}: core's layers import only downwards ({_layer_names(layer)})"
            elif their_layer == layer and target.split(".")[2] != name.split(".")[2]:
                yield f"{where}: packages of one layer are independent ({_layer_names(layer)})"
        elif layer is not None and target in ("toolfx.core", "toolfx.core.public"):
            yield f"{where}: a layer never imports the package root"


def _layer_names(layer: int) -> str:
    return " < ".join("/".join(names) for names in CORE_LAYERS[: layer + 1])


def _home_violations(graph: _Graph) -> Iterator[str]:
    homes: dict[tuple[str, str], list[str]] = {}
    for name, info in graph.modules.items():
        if _owner(name) is not None or name in DISTRIBUTIONS:
            continue
        for exported in info.exports:
            defining = graph.defining(name, exported)
            if defining is None:
                yield f"{name} exports {exported}, which it does not have"
                continue
            homes.setdefault((defining, exported), []).append(name)
    for (defining, exported), faces in sorted(homes.items()):
        if len(faces) > 1:
            yield f"{exported} (from {defining}) has more than one home: {', '.join(faces)}"


def _shape_violations(graph: _Graph, distribution: str) -> Iterator[str]:
    own = [m for m in graph.modules if graph.distribution(m) == distribution]
    public = [m for m in own if _owner(m) is None]
    if len(public) > len(own) * PUBLIC_SHARE:
        yield (
            f"{distribution}: {len(public)} of {len(own)} modules are public "
            f"(at most a third may be): {', '.join(sorted(public))}"
        )
    longest = _chain(graph, distribution)
    if len(longest) > MAX_CHAIN:
        yield (
            f"{distribution}: an import chain of {len(longest)} modules "
            f"(at most {MAX_CHAIN}): {' -> '.join(longest)}"
        )
