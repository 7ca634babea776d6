"""`toolfx demo`: the bundled session (session.jsonl) against a temporary copy of the bundled
workspace, under the bundled rules (rules.json), with a scripted approver that allows each ask
once. It shows every card kind, an approval, a denial, a failing call, bounded output, and one
Code Mode turn (the tools are presented `both` ways): a `run_code` program that gathers a glob
and a grep and counts the functions in each file. Without Monty (the `codemode` extra) that call
fails saying how to install it, and the rest of the demo runs as before.

`--interactive` asks at the terminal instead, as `run` does; `--keep` keeps the workspace (its
path is said on stderr) to look at or run again.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from importlib.resources import as_file, files
from typing import Final

from toolfx.interpreters.cli._approvals import Answer, fixed
from toolfx.interpreters.cli._args import DemoCommand
from toolfx.interpreters.cli._asking import terminal_answers
from toolfx.interpreters.cli._commands import play, terminal_console
from toolfx.interpreters.cli._log import SessionHeader
from toolfx.interpreters.cli._render import Display
from toolfx.interpreters.cli._session import parse_session
from toolfx.interpreters.cli._visible import visible
from toolfx.interpreters.providers import load_catalog

__all__ = ["BUILD_LOG_LINES", "DEMO_PRESENTATION", "demo"]

BUILD_LOG_LINES: Final = 2400
"""The generated build log's length: over the 2,000 lines a read or a command may show."""

DEMO_PRESENTATION: Final = "both"
"""The demo's tools are native tool calls and reachable from its `run_code` program."""

_DATA: Final = files(__name__)


def demo(command: DemoCommand) -> int:
    """Run the demo session in a temporary workspace, removed afterwards unless kept."""
    with _workspace(keep=command.keep) as root:
        with as_file(_DATA / "workspace") as source:
            shutil.copytree(source, root, ignore=shutil.ignore_patterns("__pycache__"))
        _write_build_log(os.path.join(root, "logs", "build.log"))
        turns = parse_session((_DATA / "session.jsonl").read_text("utf-8"))
        rules = json.loads((_DATA / "rules.json").read_text("utf-8"))
        catalog = load_catalog(root, rules, command.sandbox, present=DEMO_PRESENTATION)
        header = SessionHeader(root, command.interpreter, DEMO_PRESENTATION)
        if not command.interactive:  # the scripted approver: each ask allowed once
            play(turns, catalog, header, _allow_once, log=command.log, output=command.output)
            return 0
        with terminal_answers(catalog, terminal_console(command.output)) as asking:
            play(turns, catalog, header, asking.answer_for, log=command.log, output=command.output)
        asking.report()
    return 0


@contextlib.contextmanager
def _workspace(*, keep: bool) -> Iterator[str]:
    """Where the demo's workspace goes (not made yet): in a new temporary folder, removed on
    leaving unless it is kept, and then where it is is said on stderr (however the demo ends)."""
    if not keep:
        with tempfile.TemporaryDirectory(prefix="toolfx-demo-") as temp:
            yield os.path.join(os.path.realpath(temp), "workspace")
        return
    root = os.path.join(os.path.realpath(tempfile.mkdtemp(prefix="toolfx-demo-")), "workspace")
    try:
        yield root
    finally:
        print(f"toolfx: the demo workspace is kept at {visible(root)}", file=sys.stderr)


def _allow_once(display: Display) -> Answer:
    """The demo's scripted approver: each ask allowed once."""
    return fixed("allowed-once")


def _write_build_log(path: str) -> None:
    """A long, made-up build log (generated rather than shipped)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as log:
        for step in range(1, BUILD_LOG_LINES + 1):
            log.write(
                f"[build] step {step:04d}: compiled module_{step % 97:02d}.py in {step % 13} ms\n"
            )
