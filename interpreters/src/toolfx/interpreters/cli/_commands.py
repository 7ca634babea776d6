"""The commands: `run` plays a session file, `replay` shows a log again, `tools` lists schemas.

`play` is what `run` and `demo` share: open the log, show and record every record as it happens,
run the turns, then the summary.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence

from returns.result import Failure
from rich.console import Console

from toolfx.core.json import JsonValue, parse_json, thaw_json
from toolfx.core.registry import Catalog
from toolfx.core.runtime import spill_folder
from toolfx.interpreters.cli._approvals import Answer, Prompter, choose_answer
from toolfx.interpreters.cli._args import OutputOptions, ReplayCommand, RunCommand, ToolsCommand
from toolfx.interpreters.cli._log import Recorder, SessionHeader, read_log
from toolfx.interpreters.cli._log_file import LogFile
from toolfx.interpreters.cli._providers import export_schemas, load_catalog
from toolfx.interpreters.cli._render import Display, JsonDisplay, PanelDisplay
from toolfx.interpreters.cli._runner import run_session
from toolfx.interpreters.cli._session import Turn, parse_session
from toolfx.interpreters.cli._visible import visible, visible_json

__all__ = [
    "PLAIN_WIDTH",
    "CliError",
    "load_rules",
    "play",
    "read_text",
    "replay",
    "run",
    "tools",
    "workspace_root",
]

PLAIN_WIDTH = 100
"""The console width when the output is not a terminal, so the output is the same everywhere."""


class CliError(Exception):
    """A command that cannot go on: a missing file, a bad workspace or rules file."""


def read_text(path: str, what: str) -> str:
    """The UTF-8 text of the file at `path`, or a `CliError` naming it as `what`."""
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except (OSError, ValueError) as error:  # ValueError: not UTF-8, or a NUL in the path
        raise CliError(f"cannot read the {what} {path}: {error}") from None


def _console(output: OutputOptions, *, stderr: bool = False) -> Console:
    terminal = (sys.stderr if stderr else sys.stdout).isatty()
    plain = not output.color or bool(os.environ.get("NO_COLOR"))
    return Console(
        stderr=stderr,
        color_system=None if plain else "auto",
        width=None if terminal else PLAIN_WIDTH,
        highlight=False,
        emoji=False,
        markup=False,
    )


def _display(output: OutputOptions, catalog: Catalog) -> Display:
    if output.json:
        return JsonDisplay(sys.stdout.write)
    return PanelDisplay(_console(output), catalog)


def play(
    turns: Sequence[Turn],
    catalog: Catalog,
    header: SessionHeader,
    answer_for: Callable[[Display], Answer],
    *,
    log: str | None,
    output: OutputOptions,
) -> None:
    """Run the turns, showing each record as it happens and writing the log (if any)."""
    display = _display(output, catalog)
    answer = answer_for(display)
    with contextlib.ExitStack() as stack:
        log_file: LogFile | None = None
        if log is not None:
            try:
                log_file = LogFile(stack.enter_context(open(log, "wb", buffering=0)), log)
            except (OSError, ValueError) as error:  # ValueError: a NUL in the path
                raise CliError(f"cannot write the log {log}: {error}") from None
        record = Recorder(display.show, log_file)
        record(header)
        spills = spill_folder(header.workspace, os.environ)  # the leaves read it without asking
        run_session(
            turns,
            catalog,
            header.interpreter,
            answer,
            record,
            spill_folder=spills,
            progress=display.progress,
        )
        if log_file is not None:  # failed in the last turn: the session ran no further
            log_file.check()
    display.finish()


def workspace_root(path: str) -> str:
    """The real, absolute path of a workspace folder, or a `CliError`."""
    try:
        root = os.path.realpath(path)
    except ValueError:  # a NUL in the path
        raise CliError(f"the workspace {path} is not a folder") from None
    if not os.path.isdir(root):
        raise CliError(f"the workspace {path} is not a folder")
    return root


def load_rules(path: str | None) -> JsonValue:
    """The rules file's JSON (None without one); the provider checks the rules themselves."""
    if path is None:
        return None
    parsed = parse_json(read_text(path, "rules file"))
    if isinstance(parsed, Failure):
        raise CliError(f"the rules file {path} is not JSON: {parsed.failure()}")
    return thaw_json(parsed.unwrap())


def run(command: RunCommand) -> int:
    """`toolfx run`: play the session; asks are answered as the options and terminal say."""
    _refuse_to_overwrite(
        command.log, {"session file": command.session, "rules file": command.rules}
    )
    root = workspace_root(command.workspace)
    turns = parse_session(read_text(command.session, "session file"))
    catalog = load_catalog(
        root, load_rules(command.rules), command.sandbox, present=command.present
    )
    interactive = all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout))

    def answer_for(display: Display) -> Answer:
        prompter = Prompter(_console(command.output, stderr=True), display.paused)
        return choose_answer(
            yes=command.yes,
            deny_asks=command.deny_asks,
            prompter=prompter if interactive else None,
        )

    header = SessionHeader(root, command.interpreter, command.present)
    play(turns, catalog, header, answer_for, log=command.log, output=command.output)
    return 0


def _refuse_to_overwrite(log: str | None, inputs: Mapping[str, str | None]) -> None:
    """A `CliError` if the log would be written over one of the inputs (the same file, however
    named: a relative path, a symbolic or a hard link)."""
    if log is None:
        return
    for what, path in inputs.items():
        try:
            same = path is not None and os.path.samefile(log, path)
        except (OSError, ValueError):  # one of them does not exist (yet), or a NUL in a path
            continue
        if same:
            raise CliError(f"the log {log} is the {what} {path}: writing it would destroy it")


def replay(command: ReplayCommand) -> int:
    """`toolfx replay`: show a log's records again with the same tools' presenters."""
    header, records = read_log(read_text(command.log, "log"))
    display = _display(command.output, load_catalog(header.workspace, present=header.present))
    for record in (header, *records):
        display.show(record)
    display.finish()
    return 0


def tools(command: ToolsCommand) -> int:
    """`toolfx tools`: print the tools' schemas in the chosen form."""
    catalog = load_catalog(workspace_root(command.workspace), present=command.present)
    exported, notes = export_schemas(catalog, command.form)
    print(visible_json(json.dumps(exported, indent=2, ensure_ascii=False)))
    for note in notes:  # what the provider's form could not keep, for the person reading
        print(f"note: {visible(str(note))}", file=sys.stderr)
    return 0
