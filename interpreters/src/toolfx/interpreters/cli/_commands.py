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
from toolfx.core.json import JsonValue, parse_json, plural, thaw_json
from toolfx.core.registry import Catalog
from toolfx.core.runtime import ApprovalReply, RejectedWithFeedback, RemoteRunner, spill_folder
from toolfx.interpreters.cli._approvals import Answer
from toolfx.interpreters.cli._args import (
    ApproveAnswer,
    ApproveCommand,
    OutputOptions,
    ReplayCommand,
    RunCommand,
    ToolsCommand,
)
from toolfx.interpreters.cli._asking import terminal_answers
from toolfx.interpreters.cli._exits import EXIT_ASKS_WAIT, EXIT_NO_SUCH_ASK, EXIT_OK
from toolfx.interpreters.cli._interrupts import Interrupts
from toolfx.interpreters.cli._journaled import (
    JournaledTurns,
    WaitingAsk,
    repeated_call_ids,
    waiting_asks,
    waiting_lines,
)
from toolfx.interpreters.cli._log import LogError, Recorder, SessionHeader, log_text, read_log
from toolfx.interpreters.cli._log_file import LogFile
from toolfx.interpreters.cli._providers import export_schemas, merged_notes
from toolfx.interpreters.cli._remote import (
    RemoteUnavailableError,
    placed_remotely,
    remote_runner,
)
from toolfx.interpreters.cli._render import Display, JsonDisplay, PanelDisplay
from toolfx.interpreters.cli._run_lock import JournalInUseError, exclusive_run
from toolfx.interpreters.cli._runner import run_session, turn_calls
from toolfx.interpreters.cli._session import SessionError, Turn, parse_session
from toolfx.interpreters.cli._tty import Terminal
from toolfx.interpreters.cli._visible import visible, visible_id, visible_json
from toolfx.interpreters.journal import Durability, JournalFileError, SqliteJournal
from toolfx.interpreters.providers import ProviderError, load_catalog

__all__ = [
    "PLAIN_WIDTH",
    "CliError",
    "approve",
    "load_rules",
    "play",
    "read_text",
    "replay",
    "run",
    "terminal_console",
    "tools",
    "workspace_root",
]

PLAIN_WIDTH = 100
"""The console width when the output is not a terminal, so the output is the same everywhere."""


class CliError(Exception):
    """A command that cannot go on: a missing file, a bad workspace or rules file."""


def read_text(path: str, what: str, decode: Callable[[bytes], str] = bytes.decode) -> str:
    """The text of the file at `path` (UTF-8, or as `decode` reads its bytes), or a `CliError`
    naming it as `what`."""
    try:
        with open(path, "rb") as file:
            return decode(file.read())
    except (OSError, ValueError) as error:  # ValueError: not UTF-8, or a NUL in the path
        raise CliError(_unusable_file(what, path, error, "read")) from None


def _unusable_file(what: str, path: str, error: OSError | ValueError, verb: str) -> str:
    """Why the file at `path` (named as `what`) could not be used as `verb` says: read or
    written."""
    match error:
        case FileNotFoundError() if verb == "read":
            return f"the {what} {path} does not exist"
        case FileNotFoundError():
            return f"the {what} {path} cannot be written: its folder does not exist"
        case IsADirectoryError():
            return f"the {what} {path} is a folder; give a file"
        case PermissionError():
            return f"the {what} {path} cannot be {verb}: permission denied"
        case UnicodeDecodeError():
            return f"the {what} {path} is not UTF-8 text (at byte {error.start})"
        case OSError():
            return f"cannot {verb} the {what} {path}: {error.strerror or error}"
        case _:  # a NUL in the path
            return f"the {what} path {path} holds a NUL character"


def _console(output: OutputOptions, terminal: Terminal | None = None) -> Console:
    """A console on stdout, or on the controlling `terminal` (the approval prompt's)."""
    plain = not output.color or bool(os.environ.get("NO_COLOR"))
    if terminal is None:
        file, width = None, None if sys.stdout.isatty() else PLAIN_WIDTH
    else:
        file, width = terminal.writer, terminal.columns
    return Console(
        file=file,
        color_system=None if plain else "auto",
        width=width,
        highlight=False,
        emoji=False,
        markup=False,
    )


def terminal_console(output: OutputOptions) -> Callable[[Terminal], Console]:
    """What makes the approval prompt's console on the controlling terminal, for `output`."""
    return lambda terminal: _console(output, terminal)


def _display(output: OutputOptions, catalog: Catalog, *, live: bool = True) -> Display:
    if output.json:
        return JsonDisplay(sys.stdout.write)
    return PanelDisplay(_console(output), catalog, verbose=output.verbose, live=live)


def play(
    turns: Sequence[Turn],
    catalog: Catalog,
    header: SessionHeader,
    answer_for: Callable[[Display], Answer],
    *,
    log: str | None,
    output: OutputOptions,
    journal: Journal | None = None,
    remote: RemoteRunner | None = None,
) -> tuple[WaitingAsk, ...]:
    """Run the turns, showing each record as it happens and writing the log (if any); with a
    journal, every record is committed to it first, and the asks left waiting are returned.
    The bodies of the tools placed remotely run on `remote` (None: here).

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
                raise CliError(_unusable_file("log", log, error, "written")) from None
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
            remote=remote,
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
        raise CliError(f"the workspace path {path} holds a NUL character") from None
    if not os.path.isdir(root):
        missing = not os.path.exists(root)
        raise CliError(
            f"the workspace {path} does not exist"
            if missing
            else f"the workspace {path} is not a folder (give one with --workspace DIR)"
        )
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
    turns = _session(command.session)
    rules = load_rules(command.rules)
    catalog = _catalog(root, rules, command)
    _refuse_repeated_ids(turns, catalog)
    remote = None
    if command.remote is not None:
        catalog = placed_remotely(catalog)
        try:
            remote = remote_runner(command.remote, root, rules, command.sandbox)
        except RemoteUnavailableError as error:
            raise CliError(str(error)) from None
    header = SessionHeader(root, command.interpreter, command.present)
    with contextlib.ExitStack() as stack:
        asking = stack.enter_context(
            terminal_answers(
                catalog,
                terminal_console(command.output),
                yes=command.yes,
                deny_asks=command.deny_asks,
                defer=command.defer_asks,
            )
        )
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
            asking.answer_for,
            log=command.log,
            output=command.output,
            journal=journal,
            remote=remote,
        )
    asking.report()
    if not waiting or command.journal is None:
        return EXIT_OK
    _note(f"{_waits(len(waiting))} for an answer in the journal {command.journal}:")
    for line in waiting_lines(waiting, command.journal):
        print(visible(line), file=sys.stderr)
    _note("answer them, then run the session again with the same journal to go on")
    return EXIT_ASKS_WAIT


def _session(path: str) -> tuple[Turn, ...]:
    """The turns of the session file at `path`; a bad one is a `CliError` naming it, an empty
    one is said on stderr (it runs nothing)."""
    try:
        turns = parse_session(read_text(path, "session file"))
    except SessionError as error:
        raise CliError(f"the session file {path}, {error}") from None
    if not turns:
        _note(f"the session file {path} has no turns (no JSON lines): nothing to run")
    return turns


def _catalog(root: str, rules: JsonValue, command: RunCommand) -> Catalog:
    """The run's tools; a provider refusing its rules says which file they came from."""
    try:
        return load_catalog(root, rules, command.sandbox, present=command.present)
    except ProviderError as error:
        if command.rules is None:
            raise
        raise CliError(f"{error} (with the rules file {command.rules})") from None


def approve(command: ApproveCommand) -> int:
    """`toolfx approve`: journal the answer to one waiting ask (exit 4 if none of that call
    waits), or list the waiting asks."""
    try:
        found = os.path.isfile(command.journal)
    except ValueError:  # a NUL in the path
        found = False
    if not found:  # answering makes no journal: the run that asked made it
        if os.path.isdir(command.journal):
            raise CliError(f"the journal {command.journal} is a folder; give the journal file")
        raise CliError(f"there is no journal at {command.journal}")
    with _opened_journal(command.journal) as journal:
        session = JournaledSession(journal)
        waiting = waiting_asks(session)
        if command.call_id is None or command.answer is None:
            print(visible(f"{_waits(len(waiting))} in the journal {command.journal}"))
            for line in waiting_lines(waiting, command.journal):
                print(visible(line))
            return EXIT_OK
        try:
            answered = session.answer(command.call_id, _reply(command.answer, command.feedback))
        except JournalError:
            asked = visible_id(command.call_id)
            _note(f"no ask of the call {asked} waits in the journal {command.journal};")
            print(visible(f"{_waits(len(waiting))}:"), file=sys.stderr)
            for line in waiting_lines(waiting, command.journal):
                print(visible(line), file=sys.stderr)
            return EXIT_NO_SUCH_ASK
    tool = next((w.tool for w in waiting if w.ask.call_id == answered.call_id), "?")
    print(
        visible(
            f"{visible_id(answered.call_id)} · {tool}: {answered.permission}"
            f" on {', '.join(answered.patterns)}"
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


def _waits(count: int) -> str:
    return plural(count, "ask waits", "asks wait")


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
    """A `CliError` if a call id is used in two turns: the log and the answers pair with calls by
    id (a reader would pair one call's result with the other), and a journal knows a call by its
    id (the later call would be replayed or refused instead of run)."""
    ids = [tuple(call.call_id for call in turn_calls(turn, catalog)) for turn in turns]
    repeated = repeated_call_ids(ids)
    if repeated:
        call_id, numbers = next(iter(repeated.items()))
        shown = ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}"
        raise CliError(
            f"the call id '{visible_id(call_id)}' is used in turns {shown}"
            f"{f' (and {len(repeated) - 1} more ids repeat)' if len(repeated) > 1 else ''}:"
            " the log and a journal know a call by its id, so each call id is used once in a"
            " session (CALL_ID_CONFLICT)"
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
    """`toolfx replay`: show a log's records again with the same tools' presenters (a last line
    cut short left out, and said on stderr)."""
    cut: list[int] = []
    try:
        header, records = read_log(read_text(command.log, "log", log_text), cut.append)
    except LogError as error:
        raise CliError(f"the log {command.log}, {error}") from None
    catalog = load_catalog(header.workspace, present=header.present)
    display = _display(command.output, catalog, live=False)  # nothing runs
    for record in (header, *records):
        display.show(record)
    display.finish()
    for line in cut:
        _note(
            f"the last line of the log {command.log} (line {line}) was cut short, as when the"
            " run ended while writing it: what came before it is shown"
        )
    return 0


def tools(command: ToolsCommand) -> int:
    """`toolfx tools`: print the tools' schemas in the chosen form."""
    catalog = load_catalog(workspace_root(command.workspace), present=command.present)
    exported, notes = export_schemas(catalog, command.form)
    print(visible_json(json.dumps(exported, indent=2, ensure_ascii=False)))
    for note in merged_notes(notes):  # what the provider's form could not keep, for the reader
        print(f"note: {visible(note)}", file=sys.stderr)
    return 0
