"""The leading words of each simple command in a shell line: what `bash` asks permission for.

A line splits into simple commands at `;`, `&`, `&&`, `|`, `||`, newlines and parentheses
(quotes respected, by `shlex`, falling back to a rough split for an unbalanced quote). Leading
variable assignments and reserved words (`if`, `then`, `do`, `!`, ...) are skipped, a
redirection's target is no word of its command, a comment line asks nothing, and the text of
each `$(...)` and each backquoted part is parsed again, quoted or not. The split errs towards
asking for more: it is a permission prompt's summary, not a sandbox.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import Final

__all__ = ["command_prefixes"]

_PUNCTUATION: Final = "();<>|&\n"
_SEPARATORS: Final = frozenset(";&|\n")
_RESERVED: Final = frozenset(
    {"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time"}
)
_ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_SUBSTITUTION: Final = re.compile(r"\$\(")
_ROUGH_TOKEN: Final = re.compile(r"[();<>|&\n]+|[^\s();<>|&'\"]+")


def command_prefixes(command: str) -> tuple[str, ...]:
    """Each simple command's first two words (or its only one), in order, without repeats."""
    substituted = [command[start.end() :] for start in _SUBSTITUTION.finditer(command)]
    backquoted = command.split("`")[1::2]
    found: dict[str, None] = {}
    for text in (command, *substituted, *backquoted):
        for words in _simple_commands(text):
            lead = _leading(words)
            if lead is not None:
                found[lead] = None
    return tuple(found)


def _tokens(command: str) -> list[str]:
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=_PUNCTUATION)
        lexer.whitespace = " \t\r"  # a newline separates commands
        lexer.whitespace_split = True
        lexer.commenters = ""  # `#` inside a word is no comment to bash
        return list(lexer)
    except ValueError:  # an unbalanced quote or a final backslash: quotes split words
        return _ROUGH_TOKEN.findall(command)


def _simple_commands(command: str) -> Iterator[list[str]]:
    words: list[str] = []
    redirected = False
    for token in _tokens(command):
        if token and all(char in _PUNCTUATION for char in token):
            if "(" in token or ")" in token or set(token) <= _SEPARATORS:
                if token.startswith("(") and words and words[-1].endswith("$"):
                    words[-1] = words[-1][:-1]  # `$(`: the `$` opens the substitution
                yield words
                words, redirected = [], False
            else:  # a redirection: a file descriptor before it and its target are no words
                if words and words[-1].isdigit():
                    words.pop()
                redirected = True
            continue
        if redirected:
            redirected = False
        else:
            words.append(token)
    yield words


def _leading(words: list[str]) -> str | None:
    start = 0
    words = [word for word in words if word]
    while start < len(words) and (words[start] in _RESERVED or _ASSIGNMENT.match(words[start])):
        start += 1
    lead = words[start : start + 2]
    if not lead or lead[0].startswith("#"):  # nothing to run, or a comment
        return None
    return " ".join(lead)
