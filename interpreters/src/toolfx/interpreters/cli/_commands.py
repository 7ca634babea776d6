"""The commands: `run` plays a session file, `approve` answers an ask a journal keeps, `replay`
shows a log again, `tools` lists schemas.

`play` is what `run` and `demo` share: open the log, show and record every record as it happens,
run the turns (through the journal, if any), then the summary.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Final

from returns.result import Failure
from rich.console import Console

from toolfx.core.journal import Journal, JournaledSession, JournalError
from toolfx.core.json import JsonValue, parse_json, thaw_json
from toolfx.core.registry import Catalog
from toolfx.core.runtime import ApprovalReply, RejectedWithFeedback, spill_folder
from toolfx.interpreters.cli._approvals import Answer, Prompter, choose_answer, fixed
from toolfx.interpreters.cli._args import (
    ApproveAnswer,
    ApproveCommand,
    OutputOptions,
    ReplayCommand,
    RunCommand,
    ToolsCommand,
)
from toolfx.interpreters.cli._exits import EXIT_ASKS_WAIT, EXIT_NO_SUCH_ASK, EXIT_OK
from toolfx.interpreters.cli._interrupts import Interrupts
from toolfx.interpreters.cli._journaled import (
    JournaledTurns,
    WaitingAsk,
    repeated_call_ids,
    waiting_asks,
    waiting_lines,
)
from toolfx.interpreters.cli._log import Recorder, SessionHeader, read_log
from toolfx.interpreters.cli._log_file import LogFile
from toolfx.interpreters.cli._providers import export_schemas, load_catalog
from toolfx.interpreters.cli._render import Display, JsonDisplay, PanelDisplay
from toolfx.interpreters.cli._run_lock import JournalInUseError, exclusive_run
from toolfx.interpreters.cli._runner import run_session, turn_calls
from toolfx.interpreters.cli._session import Turn, parse_session
from toolfx.interpreters.cli._visible import visible, visible_json
from toolfx.interpreters.journal import Durability, JournalFileError, SqliteJournal

__all__ = [
    "PLAIN_WIDTH",
    "CliError",
    "approve",
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
    journal: Journal | None = None,
) -> tuple[WaitingAsk, ...]:
    """Run the turns, showing each record as it happens and writing the log (if any); with a
    journal, every record is committed to it first, and the asks left waiting are returned.

    Ctrl-C cancels the running turn (its calls settle, and are recorded, as cancelled), runs no
    more turns, and ends with `Interrupted` once the summary is shown; a second exits at once.
    """
    display = _display(output, catalog)
    answer = answer_for(display)
    interrupts = Interrupts()
    with contextlib.ExitStack() as stack:
        # trio sets a wakeup fd of its own while it runs (and warns of another)
        stack.enter_context(interrupts.watching(wakeup=header.interpreter != "trio"))
        log_file: LogFile | None = None
        if log is not None:
            try:
                log_file = LogFile(stack.enter_context(open(log, "wb", buffering=0)), log)
            except (OSError, ValueError) as error:  # ValueError: a NUL in the path
                raise CliError(f"cannot write the log {log}: {error}") from None
        record = Recorder(display.show, log_file)
        journaled = None if journal is None else JournaledTurns(journal, record, _note)
        record(header)  # once the journal has been read: a journal that cannot be, shows nothing
        spills = spill_folder(header.workspace, os.environ)  # the leaves read it without asking
        run_session(
            turns,
            catalog,
            header.interpreter,
            answer,
            record,
            spill_folder=spills,
            progress=display.progress,
            journaled=journaled,
            # a journaled run goes on past a failed log (the journal keeps every record) only
            # to the end of the turn
            after_turn=None if log_file is None else log_file.check,
            interrupts=interrupts,
        )
        if log_file is not None:  # failed in the last turn: the session ran no further
            log_file.check()
    display.finish()
    interrupts.end(
        [name for name, kept in (("log", log), ("journal", journal)) if kept is not None]
    )
    return () if journaled is None else journaled.waiting()


def _note(text: str) -> None:
    """Tell the person running the command something beside the output (on stderr)."""
    print(f"toolfx: {visible(text)}", file=sys.stderr)


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
    """`toolfx run`: play the session; asks are answered as the options and terminal say (or
    deferred to `toolfx approve`); with a journal, exit 3 while asks wait in it."""
    inputs = {"session file": command.session, "rules file": command.rules}
    _refuse_to_overwrite("log", command.log, {**inputs, "journal": command.journal})
    _refuse_to_overwrite("journal", command.journal, inputs)
    root = workspace_root(command.workspace)
    _refuse_inside(root, command.journal)
    turns = parse_session(read_text(command.session, "session file"))
    catalog = load_catalog(
        root, load_rules(command.rules), command.sandbox, present=command.present
    )
    if command.journal is not None:
        _refuse_repeated_ids(turns, catalog)
    interactive = all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout))

    def answer_for(display: Display) -> Answer:
        if command.defer_asks:
            return fixed("deferred")
        prompter = Prompter(_console(command.output, stderr=True), display.paused)
        return choose_answer(
            yes=command.yes,
            deny_asks=command.deny_asks,
            prompter=prompter if interactive else None,
        )

    header = SessionHeader(root, command.interpreter, command.present)
    with contextlib.ExitStack() as stack:
        journal = None
        if command.journal is not None:
            opened = _opened_journal(command.journal, command.durability)
            journal = stack.enter_context(opened)
            try:  # before the journal's records are read: no other run settles calls meanwhile
                stack.enter_context(exclusive_run(command.journal))
            except JournalInUseError as error:
                raise CliError(str(error)) from None
        waiting = play(
            turns,
            catalog,
            header,
            answer_for,
            log=command.log,
            output=command.output,
            journal=journal,
        )
    if not waiting or command.journal is None:
        return EXIT_OK
    _note(f"{_asks(len(waiting))} for an answer in the journal {command.journal}:")
    for line in waiting_lines(waiting, command.journal):
        print(visible(line), file=sys.stderr)
    _note("answer them, then run the session again with the same journal to go on")
    return EXIT_ASKS_WAIT


def approve(command: ApproveCommand) -> int:
    """`toolfx approve`: journal the answer to one waiting ask (exit 4 if none of that call
    waits), or list the waiting asks."""
    try:
        found = os.path.isfile(command.journal)
    except ValueError:  # a NUL in the path
        found = False
    if not found:  # answering makes no journal: the run that asked made it
        raise CliError(f"there is no journal at {command.journal}")
    with _opened_journal(command.journal) as journal:
        session = JournaledSession(journal)
        waiting = waiting_asks(session)
        if command.call_id is None or command.answer is None:
            print(visible(f"{_asks(len(waiting))} in the journal {command.journal}"))
            for line in waiting_lines(waiting, command.journal):
                print(visible(line))
            return EXIT_OK
        try:
            answered = session.answer(command.call_id, _reply(command.answer, command.feedback))
        except JournalError:
            _note(f"no ask of the call {command.call_id} waits in the journal {command.journal};")
            print(visible(f"{_asks(len(waiting))}:"), file=sys.stderr)
            for line in waiting_lines(waiting, command.journal):
                print(visible(line), file=sys.stderr)
            return EXIT_NO_SUCH_ASK
    tool = next((w.tool for w in waiting if w.ask.call_id == answered.call_id), "?")
    print(
        visible(
            f"{answered.call_id} · {tool}: {answered.permission} on {', '.join(answered.patterns)}"
            f" → {_ANSWERED[command.answer]}; run the session again with this journal to go on"
        )
    )
    return EXIT_OK


_REPLIES: Final[Mapping[ApproveAnswer, ApprovalReply]] = {
    "once": "allowed-once",
    "always": "allowed-always",
    "reject": "rejected",
}
_ANSWERED: Final[Mapping[ApproveAnswer, str]] = {
    "once": "allowed once",
    "always": "allowed always",
    "reject": "rejected",
}


def _reply(answer: ApproveAnswer, feedback: str | None) -> ApprovalReply:
    if answer == "reject" and feedback is not None:
        return RejectedWithFeedback(feedback)
    return _REPLIES[answer]


def _asks(count: int) -> str:
    return "1 ask waits" if count == 1 else f"{count} asks wait"


@contextlib.contextmanager
def _opened_journal(path: str, durability: Durability = "process") -> Iterator[SqliteJournal]:
    """The SQLite journal at `path` (made if missing), closed afterwards; a file that cannot be a
    journal is a `CliError`."""
    try:
        journal = SqliteJournal(path, durability=durability)
    except JournalFileError as error:
        raise CliError(str(error)) from None
    with journal:
        yield journal


def _refuse_repeated_ids(turns: Sequence[Turn], catalog: Catalog) -> None:
    """A `CliError` if a call id is used in two turns: the journal knows a call by its id, so the
    later call would be replayed or refused instead of run."""
    ids = [tuple(call.call_id for call in turn_calls(turn, catalog)) for turn in turns]
    repeated = repeated_call_ids(ids)
    if repeated:
        call_id, numbers = next(iter(repeated.items()))
        shown = ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}"
        raise CliError(
            f"the call id {call_id!r} is used in turns {shown}"
            f"{f' (and {len(repeated) - 1} more ids repeat)' if len(repeated) > 1 else ''}:"
            " a journal knows a call by its id, so with --journal each call id is used once in"
            " the session (CALL_ID_CONFLICT)"
        )


def _refuse_inside(root: str, journal: str | None) -> None:
    """A `CliError` if the journal lies in the workspace: the model's commands and file tools
    write there without asking, so they could change the journal (answer their own asks, settle
    their own calls). Where it lies is where its path leads, through a symbolic link at the file
    itself too (SQLite opens the file a link names, and keeps its WAL beside it)."""
    if journal is None:
        return
    try:
        target = os.path.realpath(journal)
    except ValueError:  # a NUL in the path: opening it says so
        return
    if os.path.commonpath([target, root]) == root:
        raise CliError(
            f"the journal {journal} is in the workspace {root}: the model's commands and file"
            " tools could change it (and answer their own asks); keep it outside"
        )


def _refuse_to_overwrite(
    written: str, target: str | None, inputs: Mapping[str, str | None]
) -> None:
    """A `CliError` if the file `target` (the log or the journal, as `written` says) would be
    written over one of the inputs (the same file, however named: a relative path, a symbolic or
    a hard link)."""
    if target is None:
        return
    for what, path in inputs.items():
        try:
            same = path is not None and os.path.samefile(target, path)
        except (OSError, ValueError):  # one of them does not exist (yet), or a NUL in a path
            continue
        if same:
            raise CliError(
                f"the {written} {target} is the {what} {path}: writing it would destroy it"
            )


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
