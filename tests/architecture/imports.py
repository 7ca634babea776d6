"""The import rules of the three distributions, checked over their sources with `ast`.

A `Tree` is every module's name and source; `violations(tree)` lists every broken rule as a
sentence naming the module, the import and the rule, so a test (and a test of the test, over a
tree with one forbidden import added) can assert on it.

The rules (docs/architecture.md explains them):
- core's subpackages form layers; a module imports only from its own layer or the ones below.
- core performs no IO: it imports no module that reaches files, processes, threads, clocks,
  randomness or an event loop (`CORE_FORBIDDEN`; `logging` stays allowed because the default
  defect reporter logs), and never calls the builtin `open`.
- core's every module sits in a layer (`CORE_LAYERS`), except the root face and `public`.
- leaves and interpreters never import each other.
- a private module (a name with a leading underscore) is imported only from inside the package
  that holds it; everyone else goes through a public face.
- a private name (a leading underscore) is imported only from inside the importer's package.
- every public module lists its names in one literal `__all__`, never extended.
- a face (a public package's `__init__`, besides the distribution roots and `toolfx.testing`)
  holds no code: imports, a docstring, `__all__` and `publish(...)` only.
- every public name has one home: at most one public module besides the distribution root
  exports it.

Every import counts, wherever it is written (a function, loop, `try`, `match`, or an
`if TYPE_CHECKING:` body, which only marks it type-only): relative imports are resolved against
the module's package, `importlib.import_module("m")` and `__import__("m")` with a constant name are
imports of `m`, and `from P import X` is an import of module `P.X` when there is one.
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

__all__ = ["MAX_CHAIN", "Tree", "chain", "load_tree", "public_modules", "violations"]

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
    ("codemode",),
    ("records", "registry"),
    ("pipeline",),
    ("journal", "providers"),
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
        "datetime",
        "random",
        "uuid",
        "_thread",
        "queue",
        "http",
        "sqlite3",
        "posix",
        "mmap",
        "urllib.request",
        "socketserver",
        "asyncore",
    }
)
"""Modules (and their submodules) core never imports: files, processes, threads, clocks, loops.

`logging` stays allowed: the default defect reporter logs a defect through it.
"""

MAX_CHAIN: Final = 11
"""Eight for the pipeline; eleven since a catalog defines its own `run_code` tool, so the registry
reaches tool definition and schema derivation (seven modules deep by themselves) at runtime."""
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


@dataclass(frozen=True, slots=True)
class _Import:
    """One imported name: the module, the name (None for `import m`), its local name, when."""

    module: str
    name: str | None
    type_only: bool
    line: int
    local: str | None = None


def _imports_dynamically(call: ast.Call) -> str | None:
    """The module an `importlib.import_module`/`__import__` call names as a constant, if any."""
    match call:
        case ast.Call(
            func=ast.Name(id="import_module" | "__import__")
            | ast.Attribute(value=ast.Name(id="importlib"), attr="import_module"),
            args=[ast.Constant(value=str(module)), *_],
        ):
            return module
    return None


def _is_type_checking(test: ast.expr) -> bool:
    match test:
        case (
            ast.Name(id="TYPE_CHECKING")
            | ast.Attribute(value=ast.Name(id="typing"), attr="TYPE_CHECKING")
        ):
            return True
    return False


def _imports(tree: ast.Module, package: str) -> Iterator[_Import]:
    """Every import anywhere in a module (relative ones resolved against `package`, constant
    `importlib.import_module`/`__import__` calls included), marking those in the body of an
    `if TYPE_CHECKING:` as type-only."""
    guarded = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and _is_type_checking(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    for node in ast.walk(tree):
        type_only = id(node) in guarded
        if isinstance(node, ast.ImportFrom):
            module = _absolute(node.module, node.level, package)
            for alias in node.names:
                local = alias.asname or alias.name
                yield _Import(module, alias.name, type_only, node.lineno, local)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield _Import(alias.name, None, type_only, node.lineno)
        elif isinstance(node, ast.Call) and (dynamic := _imports_dynamically(node)) is not None:
            yield _Import(dynamic, None, type_only, node.lineno)


def _absolute(module: str | None, level: int, package: str) -> str:
    """The module a `from` import names, a relative one resolved against `package`."""
    if level == 0:
        return module or ""
    base = package.split(".")[: len(package.split(".")) - (level - 1)]
    return ".".join([*base, module] if module else base)


def _opens(tree: ast.Module) -> Iterator[int]:
    """The lines that call the builtin `open`."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "open"
        ):
            yield node.lineno


_FACE_CALLS: Final = frozenset({"publish"})
"""The only calls a face makes."""


def _face_code(tree: ast.Module) -> Iterator[int]:
    """The lines of a package `__init__` that do more than import, list `__all__` and publish."""
    for node in tree.body:
        match node:
            case ast.Import() | ast.ImportFrom():
                continue
            case ast.Expr(value=ast.Constant(value=str())):
                continue
            case ast.Expr(value=ast.Call(func=ast.Name(id=called))) if called in _FACE_CALLS:
                continue
            case (
                ast.Assign(targets=[ast.Name(id="__all__")])
                | ast.AnnAssign(target=ast.Name(id="__all__"))
            ):
                continue
            case ast.If(test=test, body=body, orelse=[]) if _is_type_checking(test) and all(
                isinstance(inner, ast.Import | ast.ImportFrom) for inner in body
            ):
                continue
        yield node.lineno


def _listed_names(tree: ast.Module) -> tuple[tuple[str, ...], str | None]:
    """The names of a module's `__all__`, and what is wrong with it (None when one literal)."""
    exports: tuple[str, ...] | None = None
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and any(
            isinstance(target, ast.Name) and target.id == "__all__"
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        ):
            if exports is not None:
                return exports, f"line {node.lineno} sets __all__ a second time"
            try:
                exports = tuple(ast.literal_eval(node.value)) if node.value else ()
            except ValueError:
                return (), f"line {node.lineno} computes __all__"
    for changed in ast.walk(tree):
        match changed:
            case (
                ast.AugAssign(target=ast.Name(id="__all__"))
                | ast.Attribute(value=ast.Name(id="__all__"), ctx=ast.Load())
            ):
                return exports or (), f"line {changed.lineno} changes __all__"
    return (exports or ()), (None if exports is not None else "it has no __all__")


@dataclass(frozen=True, slots=True)
class _Module:
    """A parsed module: what it defines, re-imports and imports, and what the rules look at."""

    name: str
    package: bool
    defines: frozenset[str]
    reimports: Mapping[str, tuple[str, str]]
    imports: tuple[_Import, ...]
    exports: tuple[str, ...]
    exports_problem: str | None
    opens: tuple[int, ...]
    face_code: tuple[int, ...]


@functools.cache
def _parse(name: str, source: str, package: bool) -> _Module:
    tree = ast.parse(source)
    defines: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            defines.add(node.name)
        elif isinstance(node, ast.Assign):
            defines.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defines.add(node.target.id)
    defines.discard("__all__")
    imports = tuple(_imports(tree, name if package else name.rpartition(".")[0]))
    reimports = {
        i.local: (i.module, i.name)
        for i in imports
        if i.name and i.local and i.module.startswith("toolfx")
    }
    exports, problem = _listed_names(tree)
    face = tuple(_face_code(tree)) if package else ()
    return _Module(
        name,
        package,
        frozenset(defines),
        reimports,
        imports,
        exports,
        problem,
        tuple(_opens(tree)),
        face,
    )


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
        found = self.origin(module, name)
        return None if found is None else found[0]

    def origin(self, module: str, name: str | None) -> tuple[str, str | None] | None:
        """Where `name` imported from `module` is defined, and the name it has there (through
        re-imports and their aliases); a submodule is its own origin."""
        seen: set[tuple[str, str | None]] = set()
        while module in self.modules and (module, name) not in seen:
            seen.add((module, name))
            if name is None:
                return module, None
            if f"{module}.{name}" in self.modules:
                return f"{module}.{name}", None
            info = self.modules[module]
            if name in info.defines or name not in info.reimports:
                return module, name
            module, name = info.reimports[name]
        return (module, name) if module in self.modules else None

    def submodule(self, imported: _Import) -> str:
        """The module an import reaches: `from P import X` reaches module `P.X` if there is one."""
        if imported.name is not None and f"{imported.module}.{imported.name}" in self.modules:
            return f"{imported.module}.{imported.name}"
        return imported.module

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


def public_modules(tree: Tree) -> list[str]:
    """The public modules of `tree`: no part of their dotted name starts with an underscore."""
    return sorted(m for m in tree.sources if _owner(m) is None)


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
        found.extend(_module_violations(graph, name, info))
        found.extend(_import_violations(graph, name, info))
    found.extend(_home_violations(graph))
    for distribution in DISTRIBUTIONS:
        found.extend(_shape_violations(graph, distribution))
    return found


_ROOT_MODULES: Final = frozenset({"toolfx.core", "toolfx.core.public"})
"""core's modules outside the layers: the root face and the `publish` helper it calls."""

_CODE_FACES: Final = frozenset({*DISTRIBUTIONS, *OTHER_PACKAGES})
"""Package `__init__`s that may hold code besides imports (the roots and the kit)."""


def _module_violations(graph: _Graph, name: str, info: _Module) -> Iterator[str]:
    """The rules about a module itself: its layer, its `__all__`, its face, its IO."""
    public = _owner(name) is None
    if graph.distribution(name) == "toolfx.core":
        if _layer(name) is None and name not in _ROOT_MODULES:
            yield f"{name}: every core module is in a layer; it is not in a layer ({_LAYERS})"
        for line in info.opens:
            yield f"{name} (line {line}) calls open: core performs no IO"
    if public and info.exports_problem is not None:
        yield f"{name}: a public module lists its names in __all__ ({info.exports_problem})"
    if public and name not in _CODE_FACES:
        for line in info.face_code:
            yield f"{name} (line {line}): a face holds no code, only imports, __all__, publish"


def _forbidden_in_core(imported: _Import) -> bool:
    written = [imported.module]
    if imported.name is not None:
        written.append(f"{imported.module}.{imported.name}")
    return any(
        ".".join(parts[:end]) in CORE_FORBIDDEN
        for parts in (w.split(".") for w in written)
        for end in range(1, len(parts) + 1)
    )


def _is_private_name(name: str | None) -> bool:
    return name is not None and name.startswith("_") and not name.endswith("__")


def _import_violations(graph: _Graph, name: str, info: _Module) -> Iterator[str]:
    here = graph.distribution(name)
    layer = _layer(name)
    package = name if info.package else name.rpartition(".")[0]
    for imported in info.imports:
        where = f"{name} (line {imported.line}) imports {imported.module}"
        if here == "toolfx.core" and _forbidden_in_core(imported):
            yield f"{where}: core performs no IO (no files, processes, threads, clocks, loops)"
        target = graph.submodule(imported)
        if target != "toolfx" and not target.startswith("toolfx."):
            continue
        where = f"{name} (line {imported.line}) imports {target}"
        there = graph.distribution(target)
        if {here, there} == {"toolfx.leaves", "toolfx.interpreters"}:
            yield f"{where}: leaves and interpreters never import each other"
        if here == "toolfx.core" and there != "toolfx.core":
            yield f"{where}: core imports no other distribution"
        owner = _owner(target)
        if owner is not None and not _inside(name, owner):
            yield f"{where}: a private module is imported only from inside {owner}"
        private_name = target == imported.module and _is_private_name(imported.name)
        if private_name and not _inside(target, package):
            yield f"{where}: a private name ({imported.name}) stays inside its package"
        their_layer = _layer(target)
        if layer is not None and their_layer is not None:
            if their_layer > layer:
                yield f"{where}: core's layers import only downwards ({_layer_names(layer)})"
            elif their_layer == layer and target.split(".")[2] != name.split(".")[2]:
                yield f"{where}: packages of one layer are independent ({_layer_names(layer)})"
        elif layer is not None and target in _ROOT_MODULES:
            yield f"{where}: a layer never imports the package root"


def _layer_names(layer: int) -> str:
    return " < ".join("/".join(names) for names in CORE_LAYERS[: layer + 1])


_LAYERS: Final = _layer_names(len(CORE_LAYERS) - 1)


def _home_violations(graph: _Graph) -> Iterator[str]:
    homes: dict[tuple[str, str | None], list[str]] = {}
    for name, info in graph.modules.items():
        if _owner(name) is not None or name in DISTRIBUTIONS:
            continue
        for exported in info.exports:
            origin = graph.origin(name, exported)
            if origin is None:
                yield f"{name} exports {exported}, which it does not have"
                continue
            homes.setdefault(origin, []).append(f"{name}.{exported}")
    for (defining, defined), faces in sorted(homes.items(), key=str):
        if len(faces) > 1:
            homes_list = ", ".join(faces)
            yield f"{defined or defining} (from {defining}) has more than one home: {homes_list}"


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
