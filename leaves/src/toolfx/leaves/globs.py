"""Glob patterns as regular expressions: `**`, `*`, `?`, `[...]` and `{a,b}` over `/` paths."""

from __future__ import annotations

import functools
import re

__all__ = ["glob_regex"]


@functools.lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """The regex a whole path must match (`fullmatch`) to match `pattern`.

    `*` and `?` never cross a `/`; a `**` segment matches any depth (`**/` zero or more
    folders, a final `**` everything below); `[!...]` negates a class; `{a,b}` picks one.
    An unclosed `[` or `{` is literal. A class that is no valid range raises `re.error`.
    """
    return re.compile(_translate(pattern), re.DOTALL)


def _translate(pattern: str) -> str:
    parts: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "*":
            end = i
            while end < n and pattern[end] == "*":
                end += 1
            whole_segment = (i == 0 or pattern[i - 1] == "/") and (end == n or pattern[end] == "/")
            if end - i > 1 and whole_segment:
                parts.append(".*" if end == n else "(?:[^/]*/)*")
                if end < n:  # `**/` takes its slash along
                    end += 1
            else:
                parts.append("[^/]*")
            i = end
        elif char == "?":
            parts.append("[^/]")
            i += 1
        elif char == "[" and (close := _class_end(pattern, i)) is not None:
            parts.append(_char_class(pattern[i + 1 : close]))
            i = close + 1
        elif char == "{" and (choices := _alternatives(pattern, i)) is not None:
            options, close = choices
            parts.append("(?:" + "|".join(_translate(option) for option in options) + ")")
            i = close + 1
        else:
            parts.append(re.escape(char))
            i += 1
    return "".join(parts)


def _class_end(pattern: str, start: int) -> int | None:
    """The index of the `]` closing the class opened at `start`, if it is closed."""
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":  # a leading `]` is a member
        i += 1
    close = pattern.find("]", i)
    return None if close < 0 else close


def _char_class(body: str) -> str:
    negated = body[:1] in ("!", "^")
    members = body[1:] if negated else body
    escaped = "".join(
        char if char == "-" and 0 < index < len(members) - 1 else re.escape(char)
        for index, char in enumerate(members)
    )
    return f"[^/{escaped}]" if negated else f"(?!/)[{escaped}]"


def _alternatives(pattern: str, start: int) -> tuple[list[str], int] | None:
    """The comma-separated options of the `{...}` opened at `start` and its closing index."""
    depth, options, begin = 0, [], start + 1
    for i in range(start, len(pattern)):
        char = pattern[i]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                options.append(pattern[begin:i])
                return (options, i) if len(options) > 1 else None
        elif char == "," and depth == 1:
            options.append(pattern[begin:i])
            begin = i + 1
    return None
