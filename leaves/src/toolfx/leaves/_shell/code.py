"""Code a literal-looking command runs that its words do not show: launchers, builtins that
evaluate a quoted `$`, and assignments that choose what later runs.

These are tables, so they are a deny list's kind of knowledge: a program missing here is read
as an ordinary program. What they catch is marked unknown, so a deny rule makes it ask.
"""

from __future__ import annotations

from typing import Final

__all__ = ["chooses_code", "hidden_code"]

_LAUNCHERS: Final = frozenset(
    {
        "at",
        "batch",
        "catchsegv",
        "chroot",
        "chrt",
        "doas",
        "entr",
        "expect",
        "fakeroot",
        "firejail",
        "flock",
        "gdb",
        "ltrace",
        "newgrp",
        "nsenter",
        "parallel",
        "prlimit",
        "proot",
        "run-parts",
        "runuser",
        "script",
        "setpriv",
        "sg",
        "socat",
        "ssh",
        "strace",
        "su",
        "systemd-run",
        "taskset",
        "unbuffer",
        "unshare",
        "valgrind",
        "watch",
        "xvfb-run",
    }
)
"""Programs that run a command given in their arguments, with options not read here."""

_EVALUATING_BUILTINS: Final = frozenset(
    {
        "[",
        "declare",
        "export",
        "getopts",
        "local",
        "mapfile",
        "printf",
        "read",
        "readarray",
        "readonly",
        "test",
        "typeset",
        "unset",
        "wait",
    }
)
"""Builtins that take variable names: bash expands `$(...)` in a name's array subscript."""
_DECLARING: Final = frozenset({"declare", "export", "local", "readonly", "typeset"})

_CODE_VARIABLES: Final = frozenset(
    {
        "PATH",
        "ENV",
        "BASH_ENV",
        "BASHOPTS",
        "SHELLOPTS",
        "PS0",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "PROMPT_COMMAND",
        "SHELL",
        "EDITOR",
        "VISUAL",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        "GCONV_PATH",
        "MAKEFLAGS",
        "MFLAGS",
        "MAKESHELL",
    }
)
"""Variables whose value is code, or names where programs are found."""
_CODE_PREFIXES: Final = ("LD_", "DYLD_", "GIT_", "BASH_", "PYTHON", "PERL", "RUBY", "NODE_")
_CODE_SUFFIXES: Final = ("PAGER", "EDITOR", "ASKPASS", "_COMMAND", "_CMD", "_OPTIONS", "_OPTS")


def hidden_code(program: str, args: tuple[str, ...]) -> str | None:
    """Why `program` with literal `args` may run code its words do not name, or None."""
    if program in _LAUNCHERS:
        return f"{program} runs a command that is not read here"
    if program in _EVALUATING_BUILTINS and any(_expandable(arg) for arg in args):
        return f"{program} may evaluate the `$` or backquote in its arguments"
    if program in _DECLARING and any("=" in arg and chooses_code(arg) for arg in args):
        return f"{program} sets a variable that may choose what runs"
    return None


def chooses_code(assignment: str) -> bool:
    """Whether an assignment `NAME=value` (as written) may choose what code runs later."""
    target, _, value = assignment.partition("=")
    if _expandable(value) or "[" in target:  # a subscript is arithmetic: it may run `$(...)`
        return True
    name = target.removesuffix("+")
    upper = name.upper()
    return (
        upper in _CODE_VARIABLES
        or upper.startswith(_CODE_PREFIXES)
        or upper.endswith(_CODE_SUFFIXES)
    )


def _expandable(text: str) -> bool:
    return "$" in text or "`" in text
