"""The README's picture of `toolfx demo`: `make screenshot` writes it (docs/demo.svg), and
tests/cli/test_screenshot.py checks that it is current.

The demo runs with a log (its workspace kept for the tools' presenters), and the log is shown as
`toolfx replay` shows it, in colour at `WIDTH` columns, recorded by rich and exported as SVG. Two
things change from run to run and are made the same: the temporary workspace's path (shown as
`SHOWN_WORKSPACE`) and how long each command ran (left out).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Final

from rich.console import Console
from rich.text import Text

from toolfx.interpreters.cli import main
from toolfx.interpreters.cli._log import read_log
from toolfx.interpreters.cli._render import PanelDisplay
from toolfx.interpreters.providers import load_catalog

PICTURE: Final = Path(__file__).resolve().parent.parent / "docs" / "demo.svg"
"""Where the picture is kept (the README shows it)."""

WIDTH: Final = 100
"""The picture's width in columns: the width toolfx prints at when not on a terminal."""

SHOWN_WORKSPACE: Final = "~/toolfx-demo/workspace"
"""The demo workspace's path as the picture shows it."""

_DURATION: Final = re.compile(r" · \d+(?:\.\d+)? s\b| · \d+ min \d+ s\b")


def _console() -> Console:
    return Console(
        file=io.StringIO(),
        record=True,
        force_terminal=True,
        color_system="truecolor",
        width=WIDTH,
        highlight=False,
        emoji=False,
        markup=False,
    )


def _demo_text() -> str:
    """The demo's output, in colour (as ANSI text), with its workspace path and durations made
    the same on every run."""
    with tempfile.TemporaryDirectory(prefix="toolfx-screenshot-") as temp:
        log = os.path.join(temp, "demo.jsonl")
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            code = main(["demo", "--log", log, "--keep"])
        header, records = read_log(Path(log).read_text("utf-8"))
        try:
            if code != 0:
                raise RuntimeError(f"toolfx demo failed ({code}): {quiet.getvalue()}")
            console = _console()
            display = PanelDisplay(
                console, load_catalog(header.workspace, present=header.present), live=False
            )
            for record in (header, *records):
                display.show(record)
            display.finish()
        finally:
            shutil.rmtree(os.path.dirname(header.workspace))
    text = console.export_text(styles=True).replace(header.workspace, SHOWN_WORKSPACE)
    return _DURATION.sub("", text)


def render() -> str:
    """The picture of the demo as SVG text."""
    console = _console()
    for line in _demo_text().splitlines():
        console.print(Text.from_ansi(line, no_wrap=True, overflow="crop"))
    return console.export_svg(title="toolfx demo")


def write_picture() -> None:
    """Write the picture where the README finds it (`make screenshot`)."""
    PICTURE.write_text(render(), encoding="utf-8")
    print(f"wrote {PICTURE}", file=sys.stderr)


if __name__ == "__main__":
    write_picture()
