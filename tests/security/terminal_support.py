"""What the terminal-safety tests share: hostile strings, a colour terminal console, and the
check that only toolfx's own styling (SGR sequences) reaches the terminal."""

from __future__ import annotations

import io
import os
import re
from typing import Final

from rich.console import Console, RenderableType

from tests.security.figures import FIGURES
from toolfx.interpreters.cli._visible import visible

__all__ = [
    "HOSTILE",
    "assert_only_own_styling",
    "plain",
    "render",
    "terminal_console",
    "without_live_controls",
]

HOSTILE: Final = {
    "clear screen": "\x1b[2J\x1b[H",
    "window title": "\x1b]0;pwned\x07",
    "hyperlink": "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "C1 CSI": "\x9b2J\x9b31m",
    "C1 OSC": "\x9d0;pwned\x9c",
    "carriage return": "rm -rf ~\rls      ",
    "backspaces": "rm -rf ~\b\b\b\b\b\b\b\bls      ",
    "bidi override": "\u202egnp.exe\u202c",
    "bidi isolates": "\u2066x\u2069\u2067y\u2069",
    "zero width": "r\u200bm\ufeff",
    "rich markup": "[bold red]alarm[/] [link=https://evil.example]click[/link]",
    "NUL and DEL": "a\x00b\x7f",
    "tag characters": "ok\U000e0041\U000e0042",
}
"""Strings a tool, a file or a model might carry to take over the terminal, by what they try."""

_OWN_STYLING: Final = re.compile(r"\x1b\[[0-9;]*m")
_RAW: Final = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e\u2028\u2029"
    "\u2060\u2066-\u2069\ufeff\U000e0000-\U000e007f\ud800-\udfff]"
)
"""What must never reach the terminal raw (after toolfx's own SGR sequences are taken out)."""
_LIVE_CONTROLS: Final = re.compile(
    r"\r\x1b\[2K(?:\x1b\[1A\x1b\[2K)*|\x1b\[\?25h\r(?:\x1b\[1A\x1b\[2K)*|\x1b\[\?25l"
)
"""What rich's live display writes to draw and erase its region: a carriage return and erased
lines up over the region, the cursor hidden, and shown again back at the region's start."""


def terminal_console(file: io.StringIO, *, markup: bool = False) -> Console:
    """A console as the CLI makes it for a colour terminal, writing to `file`."""
    return Console(
        file=file,
        force_terminal=True,
        color_system="truecolor",
        width=200,
        highlight=False,
        emoji=False,
        markup=markup,
    )


def render(renderable: RenderableType) -> str:
    """What a colour terminal receives for `renderable`."""
    out = io.StringIO()
    terminal_console(out, markup=True).print(renderable)
    return out.getvalue()


def without_live_controls(out: str) -> str:
    """Terminal output without the live region's own cursor moves and erasures."""
    return _LIVE_CONTROLS.sub("", out)


def plain(out: str) -> str:
    """Terminal output without toolfx's own styling."""
    return _OWN_STYLING.sub("", out)


def assert_only_own_styling(out: str, *shown: str) -> None:
    """Every escape in `out` is an SGR style, nothing else hidden is raw, and each of the
    `shown` texts appears in its visible form."""
    raw = _RAW.findall(plain(out))
    FIGURES.escapes(_surface(), 1, sum(len(found) for found in raw))
    assert not raw, f"raw on the terminal: {raw!r}"
    for text in shown:
        assert visible(text, lines=False) in plain(out), f"not shown: {text!r}"


def _surface() -> str:
    """The running test's name (what surface it renders), for the figures."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "unknown")
    return test.split("::")[-1].split("[")[0].split(" ")[0].removeprefix("test_")
