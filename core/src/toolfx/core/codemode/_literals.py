"""Hostile text as Python source: string literals, docstrings and comments that keep their shape.

Every character that is not printable (controls, NUL, lone surrogates, line and paragraph
separators, ...) is written as an escape, so the source is plain printable UTF-8 that parses the
same under CPython and Monty and no text can end a literal or a comment early. A string literal or
docstring evaluates back to exactly the text it was made from (`ast.literal_eval`,
`ast.get_docstring(..., clean=False)`); a comment shows the escapes as text.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["comment_text", "docstring_literal", "string_literal"]

_NAMED: Final = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_LONE_QUOTE: Final = re.compile(r'"(?="|\Z)')


def _escape(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _printable(text: str, keep: str) -> str:
    """`text` with every non-printable character but `keep` escaped (backslashes untouched)."""
    if text.replace(keep, "").isprintable():
        return text
    return "".join(c if c.isprintable() or c == keep else _escape(c) for c in text)


def string_literal(text: str) -> str:
    """A one-line double-quoted literal whose value is `text`."""
    return '"' + _printable(text.replace("\\", "\\\\").replace('"', '\\"'), "") + '"'


def docstring_literal(text: str) -> str:
    """A triple-quoted literal whose value is `text`, its line breaks kept as lines."""
    body = _LONE_QUOTE.sub('\\\\"', _printable(text.replace("\\", "\\\\"), "\n"))
    return '"""' + body + '"""'


def comment_text(text: str) -> str:
    """`text` on one line, fit for a comment: every non-printable character shown as its escape."""
    return _printable(text, "")
