r"""Text from tools and the workspace made safe to print: what a terminal would obey, or what
would hide or reorder text, is shown as an escape instead (`\x1b`, `\u202e`).

Escaped (hidden) characters: the controls (category Cc: C0 but tab and newline, DEL, the C1
controls U+0080-U+009F; carriage return too, since it rewrites a line), the format characters
(Cf: bidi embeddings, overrides, isolates and marks such as U+202A-U+202E, U+2066-U+2069,
U+200E, U+200F, U+061C; the zero-width space U+200B, word joiner U+2060, BOM U+FEFF, soft hyphen,
tag characters U+E0000-U+E007F) except the zero-width non-joiner and joiner (U+200C, U+200D)
that emoji and many scripts need, the line and paragraph separators (Zl, Zp), and lone
surrogates (Cs, from names that are not UTF-8), which no terminal encoding carries.

The escapes are Python's: `\xhh` below U+0100, `\uhhhh` below U+10000, `\Uhhhhhhhh` above. They
stay honest (no two texts look the same): a run of backslashes is doubled where it stands right
before an escape or before text that reads as one, so a file holding the four characters `\x1b`
shows `\\x1b` while the escape character shows `\x1b`; every other backslash (`\n` in code,
`C:\Users`) shows as it is.

Call ids are machine tokens, not prose: `visible_id` shows every character of one outside
printable ASCII (spaces and backslashes too) as `\u{hex}`, so two ids that differ only by a
zero-width joiner or by Unicode normalisation (`é` and `e` + U+0301) never show the same.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from typing import Final

__all__ = ["visible", "visible_id", "visible_json", "visible_line"]

_HIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_JOINERS: Final = frozenset({"\u200c", "\u200d"})
_LOOKS_ESCAPED: Final = re.compile(r"x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}")
"""Text that would read as an escape after an odd run of backslashes."""
_CANDIDATES: Final = {
    True: re.compile(r"\\+|[^\t\n\x20-\x7e]+"),
    False: re.compile(r"\\+|[^\t\x20-\x7e]+"),
}
"""Backslash runs and runs of characters that may be hidden, with newlines kept or not."""
_OUTSIDE_ASCII: Final = re.compile(r"[^\t\n\x20-\x7e]+")
_NOT_TOKEN: Final = re.compile(r"[^\x21-\x5b\x5d-\x7e]")
"""A character `visible_id` escapes: outside printable ASCII, a space or a backslash."""


def _hidden(char: str, *, lines: bool = True) -> bool:
    """Whether `visible` escapes the character (a newline only when `lines` is False)."""
    if char == "\t" or (lines and char == "\n"):
        return False
    return unicodedata.category(char) in _HIDDEN_CATEGORIES and char not in _JOINERS


def visible(text: str, *, lines: bool = True) -> str:
    """`text` with every hidden character escaped; newlines kept unless `lines` is False."""

    def escape(match: re.Match[str]) -> str:
        found = match.group()
        if found[0] != "\\":
            return _shown(found, lines=lines, escape=_escaped)
        after = match.end()
        doubled = after < len(text) and (
            _hidden(text[after], lines=lines) or _LOOKS_ESCAPED.match(text, after) is not None
        )
        return found * 2 if doubled else found

    return _CANDIDATES[lines].sub(escape, text)


def visible_line(text: str, limit: int) -> str:
    """`text` as one visible line (its newlines escaped too), cut to `limit` characters and
    marked `…` when longer."""
    cut = len(text) > limit
    return visible(text[:limit], lines=False) + ("…" if cut else "")


def visible_id(call_id: str) -> str:
    r"""A call id as shown: every character outside printable ASCII, a space and a backslash as
    `\u{hex}` (`c1\u{200d}`), so different ids always show differently. Its escapes look like
    none of `visible`'s, which leaves the shown id as it is (it can sit in any text shown)."""
    return _NOT_TOKEN.sub(lambda match: f"\\u{{{ord(match.group()):x}}}", call_id)


def visible_json(document: str) -> str:
    """A JSON document (`json.dumps` with `ensure_ascii=False`) with hidden characters escaped
    the JSON way (`\\u0085`), so it stays the same JSON and prints safely."""

    def escape(match: re.Match[str]) -> str:
        return _shown(match.group(), lines=True, escape=lambda char: json.dumps(char)[1:-1])

    return _OUTSIDE_ASCII.sub(escape, document)


def _shown(chars: str, *, lines: bool, escape: Callable[[str], str]) -> str:
    """A run of characters outside printable ASCII with the hidden ones escaped."""
    if chars.isprintable():  # the usual case, at C speed: nothing printable is hidden
        return chars
    return "".join(escape(char) if _hidden(char, lines=lines) else char for char in chars)


def _escaped(char: str) -> str:
    point = ord(char)
    if point < 0x100:
        return f"\\x{point:02x}"
    return f"\\u{point:04x}" if point < 0x10000 else f"\\U{point:08x}"
