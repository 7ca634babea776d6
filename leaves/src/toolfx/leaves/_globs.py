"""Glob patterns on RE2: `**`, `*`, `?`, `[...]` and `{a,b}` over `/` paths, in linear time.

The translation reads each character of the pattern once (the brackets are paired in one pass
first), and the regex it makes runs on RE2, so neither a long pattern nor a long path can make
matching backtrack.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Final, final

from toolfx.leaves._regexes import LinearRegex, PatternError, check_pattern, compile_linear

__all__ = ["MAX_BRACE_DEPTH", "GlobMatcher", "glob_regex"]

MAX_BRACE_DEPTH: Final = 10
"""How deeply `{...}` alternatives may nest in one glob."""

_SLASH: Final = 0x2F


@final
@dataclass(frozen=True, slots=True)
class GlobMatcher:
    """A glob compiled to a linear-time regex a whole path must match."""

    pattern: str
    regex: LinearRegex

    def matches(self, path: str) -> bool:
        """Whether the whole of `path` matches (a name that is not UTF-8 matches as U+FFFD)."""
        try:
            data = path.encode("utf-8")
        except UnicodeEncodeError:
            data = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace").encode()
        return self.regex.fullmatch(data)


@functools.lru_cache(maxsize=256)
def glob_regex(pattern: str, what: str = "pattern") -> GlobMatcher:
    """The matcher of `pattern`; `PatternError` (naming `what`) for a glob that cannot be one.

    `*` and `?` never cross a `/`; a `**` segment matches any depth (`**/` zero or more
    folders, a final `**` everything below); `[!...]` negates a class; `{a,b}` picks one.
    An unclosed `[` or `{` is literal. A reversed range (`[z-a]`) is refused.
    """
    translation = _Translation(pattern, what)
    regex = translation.translate(0, len(pattern))
    return GlobMatcher(pattern, compile_linear(pattern, what, regex=f"(?s){regex}"))


@final
class _Translation:
    """One glob's bracket pairs, found in one pass, and its translation by index ranges."""

    __slots__ = ("closing_bracket", "commas", "pattern", "what")

    def __init__(self, pattern: str, what: str) -> None:
        check_pattern(pattern, what)
        self.pattern, self.what = pattern, what
        self.closing_bracket = _next_closing_brackets(pattern)
        self.commas: dict[int, tuple[int, list[int]]] = {}  # `{` -> its `}` and its commas
        open_braces: list[tuple[int, list[int], list[int]]] = []  # start, commas, inner depth
        for i, char in enumerate(pattern):
            if char == "{":
                open_braces.append((i, [], [0]))
            elif char == "," and open_braces:
                open_braces[-1][1].append(i)
            elif char == "}" and open_braces:
                start, commas, inner = open_braces.pop()
                depth = inner[0] + (1 if commas else 0)
                if depth > MAX_BRACE_DEPTH:
                    raise PatternError(
                        f"{what} nests {{...}} alternatives more than {MAX_BRACE_DEPTH} deep "
                        f"at position {start}"
                    )
                if open_braces:
                    outer = open_braces[-1][2]
                    outer[0] = max(outer[0], depth)
                if commas:  # one option alone is literal
                    self.commas[start] = (i, commas)

    def translate(self, start: int, end: int) -> str:
        """The regex of `pattern[start:end]`."""
        pattern, parts, i = self.pattern, [], start
        while i < end:
            char = pattern[i]
            if char == "*":
                stars = i
                while i < end and pattern[i] == "*":
                    i += 1
                whole = (stars == start or pattern[stars - 1] == "/") and (
                    i == end or pattern[i] == "/"
                )
                if i - stars > 1 and whole:
                    parts.append(".*" if i == end else "(?:[^/]*/)*")
                    i += 0 if i == end else 1  # `**/` takes its slash along
                else:
                    parts.append("[^/]*")
            elif char == "?":
                parts.append("[^/]")
                i += 1
            elif char == "[" and (close := self._class_close(i, end)) is not None:
                parts.append(self._char_class(i + 1, close))
                i = close + 1
            elif char == "{" and i in self.commas and self.commas[i][0] < end:
                close, commas = self.commas[i]
                bounds = zip([i, *commas], [*commas, close], strict=True)
                options = (self.translate(left + 1, right) for left, right in bounds)
                parts.append("(?:" + "|".join(options) + ")")
                i = close + 1
            else:
                parts.append(_literal(ord(char)))
                i += 1
        return "".join(parts)

    def _class_close(self, start: int, end: int) -> int | None:
        """The index of the `]` closing the class opened at `start`, if it closes before `end`."""
        i = start + 1
        if i < end and self.pattern[i] in "!^":
            i += 1
        if i < end and self.pattern[i] == "]":  # a leading `]` is a member
            i += 1
        close = self.closing_bracket[i] if i < len(self.pattern) else -1
        return close if 0 <= close < end else None

    def _char_class(self, start: int, end: int) -> str:
        """The RE2 class of the members in `pattern[start:end]`; it never matches `/`."""
        negated = self.pattern[start] in "!^"
        members = self.pattern[start + 1 if negated else start : end]
        ranges: list[tuple[int, int]] = []
        i = 0
        while i < len(members):
            if i + 2 < len(members) and members[i + 1] == "-":
                low, high = ord(members[i]), ord(members[i + 2])
                if low > high:
                    raise PatternError(
                        f"{self.what} {self.pattern!r} has the reversed range "
                        f"{members[i : i + 3]!r} at position {start + i}; write it low to high"
                    )
                ranges.append((low, high))
                i += 3
            else:
                ranges.append((ord(members[i]), ord(members[i])))
                i += 1
        if negated:
            return "[^/" + "".join(_range(low, high) for low, high in ranges) + "]"
        kept = [part for low, high in ranges for part in _without_slash(low, high)]
        if not kept:
            return "[^\\x00-\\x{10FFFF}]"  # a class of `/` alone matches nothing
        return "[" + "".join(_range(low, high) for low, high in kept) + "]"


def _next_closing_brackets(pattern: str) -> list[int]:
    """For each index, the index of the first `]` at or after it (-1: none)."""
    found, following = [-1] * len(pattern), -1
    for i in range(len(pattern) - 1, -1, -1):
        if pattern[i] == "]":
            following = i
        found[i] = following
    return found


def _without_slash(low: int, high: int) -> list[tuple[int, int]]:
    if not low <= _SLASH <= high:
        return [(low, high)]
    return [part for part in ((low, _SLASH - 1), (_SLASH + 1, high)) if part[0] <= part[1]]


def _range(low: int, high: int) -> str:
    return _literal(low) if low == high else f"{_literal(low)}-{_literal(high)}"


def _literal(code: int) -> str:
    """One character as RE2 reads it literally (in a class too)."""
    char = chr(code)
    return char if char.isascii() and char.isalnum() else f"\\x{{{code:X}}}"
