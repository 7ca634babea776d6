"""One shell word as bash reads it: its value after quote removal when it is a plain literal,
else its source text and the mark that the shell would expand it.

A word is literal when it is made only of unquoted characters (backslash escapes decoded),
single-quoted text and double-quoted text without expansions. Anything the shell could expand
makes it not literal: `$x`, `${...}`, `$(...)`, backquotes, `$'...'` and `$"..."`, arithmetic,
unquoted glob characters `*?[]`, braces (brace expansion; a bare `{}` is literal) and `~`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, final

import tree_sitter

__all__ = ["Word", "word_of"]


@final
@dataclass(frozen=True, slots=True)
class Word:
    """A word: its literal value, or (when the shell would expand it) its source text."""

    text: str
    literal: bool


_UNQUOTED_SPECIAL: Final = frozenset("*?[]{}~$`()<>|&;")
_DOUBLE_QUOTED_ESCAPES: Final = frozenset('$`"\\\n')


def _source(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogatepass")


def word_of(node: tree_sitter.Node) -> Word:
    """The word a tree-sitter-bash node stands for (a word, string, concatenation, ...)."""
    value = _literal(node)
    return Word(_source(node), False) if value is None else Word(value, True)


def _literal(node: tree_sitter.Node) -> str | None:
    kind = node.type
    if kind in ("word", "number"):
        text = _source(node)
        return "{}" if text == "{}" else _unquoted(text)
    if kind == "raw_string":
        return _source(node)[1:-1]
    if kind == "string":
        parts = []
        for child in node.children:
            if child.type == "string_content":
                decoded = _double_quoted(_source(child))
                if decoded is None:
                    return None
                parts.append(decoded)
            elif child.type != '"':
                return None
        return "".join(parts)
    if kind == "concatenation":
        values = [_literal(child) for child in node.children]
        return None if any(value is None for value in values) else "".join(map(str, values))
    return None


def _unquoted(text: str) -> str | None:
    """An unquoted word's value with escapes decoded, or None if the shell would expand it."""
    out: list[str] = []
    chars = iter(text)
    for char in chars:
        if char == "\\":
            escaped = next(chars, "\\")
            if escaped != "\n":
                out.append(escaped)
        elif char in _UNQUOTED_SPECIAL or char.isspace():
            return None
        else:
            out.append(char)
    return "".join(out)


def _double_quoted(text: str) -> str | None:
    """Double-quoted text's value (only ``$ ` " \\`` and newline escape), None if it expands."""
    out: list[str] = []
    chars = iter(text)
    for char in chars:
        if char == "\\":
            escaped = next(chars, "")
            if escaped == "\n":
                continue
            out.append(escaped if escaped in _DOUBLE_QUOTED_ESCAPES else f"\\{escaped}")
        elif char in "$`":
            return None
        else:
            out.append(char)
    return "".join(out)
