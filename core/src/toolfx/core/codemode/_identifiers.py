"""Python identifiers for Code Mode names: ASCII, never reserved, unique within a namespace.

A name that already is a usable identifier keeps it; every other name is made one (characters
outside `[A-Za-z0-9_]` become `_`, at most `MAX_NAME_CHARS` characters are kept, a leading digit
gets a `_` before it, or in a public namespace a leading digit or underscore becomes `tool_`, a
reserved result gets a trailing `_`) and a collision takes the first free
`_2`, `_3`, ... suffix. Names kept as they are are claimed first and the rest in sorted order, so
the identifiers depend on the set of names only, not on their order. ASCII only: the parser
NFKC-normalises other identifiers, which would change the name a program calls. Public: the
type checker sees the stubs through a star import, which skips names with a leading underscore.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Final, final

__all__ = [
    "MAX_NAME_CHARS",
    "SANDBOX_MODULES",
    "STUB_IMPORTS",
    "Namespace",
    "is_argument_reserved",
    "is_module_reserved",
    "pascal_name",
    "plain_identifier",
]

MAX_NAME_CHARS: Final = 64
"""The most characters of a name kept in an identifier (before any collision suffix)."""

STUB_IMPORTS: Final = ("Any", "Literal", "NotRequired", "TypedDict")
"""The names the stubs import from `typing`."""

SANDBOX_MODULES: Final = (
    "asyncio",  # a program imports it to gather calls
    "base64",
    "binascii",
    "bisect",
    "collections",
    "copy",
    "csv",
    "dataclasses",
    "datetime",
    "decimal",
    "functools",
    "hashlib",
    "itertools",
    "json",
    "math",
    "os",
    "pathlib",
    "posixpath",
    "random",
    "re",
    "sys",
    "time",
    "tomllib",
    "typing",
    "unicodedata",
)
"""The modules a program may import in Monty 1.4: a tool named like one would be hidden by the
import, so it takes another name."""

_NOT_WORD: Final = re.compile(r"[^A-Za-z0-9_]")
_PLAIN: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_MODULE_RESERVED: Final = frozenset(
    (
        *keyword.kwlist,
        *keyword.softkwlist,
        *dir(builtins),
        *STUB_IMPORTS,
        *SANDBOX_MODULES,
    )
)
_KEYWORDS: Final = frozenset(keyword.kwlist)


def plain_identifier(text: str) -> bool:
    """Whether `text` is an ASCII identifier and no hard keyword (usable as a name as it is)."""
    return _PLAIN.match(text) is not None and text not in _KEYWORDS


def is_module_reserved(name: str) -> bool:
    """Whether a module-level name is unusable: keyword, soft keyword, builtin, import, private."""
    return name in _MODULE_RESERVED or name.startswith("_")


def is_argument_reserved(name: str) -> bool:
    """Whether a parameter name would not parse: a hard keyword (builtins are fine, see stubs)."""
    return name in _KEYWORDS


def _base(text: str, public: bool) -> str:
    base = _NOT_WORD.sub("_", text[:MAX_NAME_CHARS]) or "_"
    if public and (base[0].isdigit() or base[0] == "_"):
        return "tool_" + base.lstrip("_")
    return "_" + base if base[0].isdigit() else base


def pascal_name(parts: Iterable[str]) -> str:
    """A PascalCase type-name stem from name parts: `("read_file", "opts")` -> `ReadFileOpts`."""
    words = (w for part in parts for w in _NOT_WORD.sub("_", part[:MAX_NAME_CHARS]).split("_"))
    joined = "".join(w[:1].upper() + w[1:] for w in words)[:MAX_NAME_CHARS] or "Type"
    return "T" + joined if joined[0].isdigit() else joined


@final
class Namespace:
    """One scope's identifiers: each allocation is valid, not reserved and not taken before."""

    __slots__ = ("_next", "_public", "_reserved", "_taken")

    def __init__(self, reserved: Callable[[str], bool], *, public: bool) -> None:
        self._reserved = reserved
        self._public = public
        self._taken: set[str] = set()
        self._next: dict[str, int] = {}

    def _free(self, name: str) -> bool:
        return name not in self._taken and not self._reserved(name)

    def allocate(self, text: str) -> str:
        """A fresh identifier for `text`: itself if usable and free, else made one (see module)."""
        if plain_identifier(text) and self._free(text):
            self._taken.add(text)
            return text
        base = _base(text, self._public)
        if self._reserved(base):
            base += "_"
        candidate = base
        number = self._next.get(base, 2)
        while not self._free(candidate):
            candidate = f"{base}_{number}"
            number += 1
        self._next[base] = number
        self._taken.add(candidate)
        return candidate

    def release(self, name: str) -> None:
        """Give back an identifier that ended up unused (its suffix is the next one tried)."""
        self._taken.discard(name)
        base, _, number = name.rpartition("_")
        if number.isdigit() and base in self._next:
            self._next[base] = min(self._next[base], int(number))

    def allocate_all(self, names: Iterable[str]) -> Mapping[str, str]:
        """Identifiers for distinct names, independent of their order: name -> identifier."""
        ordered = list(names)
        chosen = {n: self.allocate(n) for n in ordered if plain_identifier(n) and self._free(n)}
        for name in sorted(n for n in ordered if n not in chosen):
            chosen[name] = self.allocate(name)
        return chosen
