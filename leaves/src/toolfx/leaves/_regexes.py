"""Linear-time regular expressions (RE2): grep's pattern and the globs' translations.

RE2 matches in time linear in the text, whatever the pattern, so no argument can make a search
backtrack. A pattern is checked before RE2 sees it: at most `MAX_PATTERN_CHARS` characters,
valid Unicode, and none of the constructs RE2 lacks (backreferences, lookaround, atomic groups,
possessive quantifiers, conditionals), each refused by name with its position. RE2's memory for
one compiled pattern is bounded by `MAX_REGEX_MEMORY`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, final

import re2

__all__ = [
    "MAX_PATTERN_CHARS",
    "MAX_REGEX_MEMORY",
    "LinearRegex",
    "PatternError",
    "check_pattern",
    "compile_linear",
    "unsupported_construct",
]

MAX_PATTERN_CHARS: Final = 1000
"""The longest regex or glob accepted, in characters."""

MAX_REGEX_MEMORY: Final = 4 * 1024 * 1024
"""RE2's memory budget for one compiled pattern (a larger program is refused)."""

_UNSUPPORTED: Final = (
    ("(?<=", "lookbehind"),
    ("(?<!", "negative lookbehind"),
    ("(?=", "lookahead"),
    ("(?!", "negative lookahead"),
    ("(?>", "atomic group"),
    ("(?(", "conditional"),
    ("(?P=", "named backreference"),
    ("(?#", "comment group"),
)
_POSSESSIVE: Final = frozenset({"*+", "++", "?+"})
_FLAGS: Final = frozenset("imsU-")
_LINE_ANCHORS: Final = "each line is searched alone: write ^ and $ for its start and end"


class PatternError(ValueError):
    """A regex or glob refused before any matching: the message says what and where."""


def unsupported_construct(pattern: str, *, single_line: bool = False) -> str | None:
    """The first construct of `pattern` RE2 does not support, named with its position.

    With `single_line` (each line searched alone) the text anchors `\\A`, `\\z` and turning
    multi-line off are refused too: `^` and `$` already mean the line's start and end.
    """
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            escaped = pattern[i + 1]
            if escaped in "123456789":
                return f"backreference \\{escaped} at position {i}"
            if escaped == "Z" or (single_line and escaped in "Az"):
                return f"text anchor \\{escaped} at position {i} ({_LINE_ANCHORS})"
            i += 2
        elif char == "[":
            i = _class_end(pattern, i)
        elif char == "(":
            for opener, name in _UNSUPPORTED:
                if pattern.startswith(opener, i):
                    return f"{name} {opener!r} at position {i}"
            flags_end = i + 2 if pattern.startswith("(?", i) else i
            while flags_end < n and pattern[flags_end] in _FLAGS:
                flags_end += 1
            if single_line and "m" in pattern[i:flags_end].partition("-")[2]:
                return f"flag group {pattern[i:flags_end]!r} at position {i} ({_LINE_ANCHORS})"
            i += 1
        elif pattern[i : i + 2] in _POSSESSIVE:
            return f"possessive quantifier {pattern[i : i + 2]!r} at position {i}"
        else:
            i += 1
    return None


def _class_end(pattern: str, start: int) -> int:
    """The index just past the `[...]` class opened at `start` (the end when it is unclosed)."""
    i, n = start + 1, len(pattern)
    if i < n and pattern[i] == "^":
        i += 1
    if i < n and pattern[i] == "]":
        i += 1
    while i < n and pattern[i] != "]":
        if pattern.startswith("[:", i) and (close := pattern.find(":]", i + 2, i + 12)) >= 0:
            i = close + 2
        else:
            i += 2 if pattern[i] == "\\" else 1
    return i + 1


@final
@dataclass(frozen=True, slots=True)
class LinearRegex:
    """A compiled RE2 pattern over UTF-8 bytes, and the pattern as it was given."""

    source: str
    compiled: re2._Regexp[bytes]

    def search(self, data: bytes, start: int = 0, end: int | None = None) -> tuple[int, int] | None:
        """The span of the leftmost match in `data[start:end]`, or None."""
        match = self.compiled.search(data, start, len(data) if end is None else end)
        return None if match is None else match.span()

    def fullmatch(self, data: bytes) -> bool:
        """Whether the whole of `data` matches."""
        return self.compiled.fullmatch(data) is not None


def check_pattern(pattern: str, what: str) -> None:
    """Refuse (`PatternError`) a pattern over `MAX_PATTERN_CHARS` or that is not valid text."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(
            f"{what} is {len(pattern)} characters long; at most {MAX_PATTERN_CHARS} are accepted"
        )
    try:
        pattern.encode("utf-8")
    except UnicodeEncodeError as error:
        raise PatternError(
            f"{what} holds a lone surrogate at position {error.start}; it is not valid text"
        ) from None


def compile_linear(
    pattern: str, what: str, *, regex: str | None = None, single_line: bool = False
) -> LinearRegex:
    """Compile `regex` (default: `pattern` itself) on RE2, checking `pattern` first.

    `what` names the argument in a `PatternError` ("regex", "include"); `single_line` keeps
    every match within one line (no match spans a newline, `^` and `$` hold at line breaks).
    """
    check_pattern(pattern, what)
    source = pattern if regex is None else regex
    encoded = (("(?m)" if single_line else "") + source).encode("utf-8")
    construct = (
        None if regex is not None else unsupported_construct(pattern, single_line=single_line)
    )
    if construct is not None:
        raise PatternError(
            f"{what} {pattern!r} uses a {construct}, which the linear-time regex engine (RE2) "
            "does not support"
        )
    options = re2.Options()
    options.max_mem = MAX_REGEX_MEMORY
    options.log_errors = False
    options.never_nl = single_line
    try:
        compiled = re2.compile(encoded, options)
    except re2.error as error:
        reason = (
            error.args[0].decode() if error.args and isinstance(error.args[0], bytes) else error
        )
        message = f"{what} {pattern!r} is not a valid RE2 regular expression: {reason}"
        raise PatternError(message) from None
    return LinearRegex(pattern, compiled)
