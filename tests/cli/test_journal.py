"""`toolfx run --journal`, `--defer-asks` and `toolfx approve` in-process: what the journal
keeps, replays, in-doubt calls, id conflicts, deferred asks and their answers, exit statuses."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from tests.cli.support import FillingFile, Ran, toolfx, write_session
from tests.properties.test_records_properties import call_records, result_records
from toolfx.core.records import (
    SessionRecord,
    ToolApprovalRecord,
    ToolCallRecord,
    ToolResultRecord,
)
from toolfx.interpreters.cli import _commands
from toolfx.interpreters.cli._args import ApproveCommand, RunCommand, parse_args
from toolfx.interpreters.cli._log import (
    LogError,
    ReplayedRecord,
    SessionHeader,
    TurnRecord,
    log_line,
    read_log,
)
from toolfx.interpreters.cli._run_lock import JournalInUseError, exclusive_run
from toolfx.interpreters.journal import Durability, JournalFileError, SqliteJournal


def write(call_id: str, path: str, content: str) -> dict[str, Any]:
    return {"id": call_id, "name": "write", "arguments": {"path": path, "content": content}}


def read(call_id: str, path: str) -> dict[str, Any]:
    return {"id": call_id, "name": "read", "arguments": {"path": path}}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def journal(tmp_path: Path) -> str:
    return str(tmp_path / "journal.db")


def journaled(
    capsys: pytest.CaptureFixture[str], session: str, workspace: Path, journal: str, *options: str
) -> Ran:
    return toolfx(
        capsys,
        "run",
        session,
        "--workspace",
        str(workspace),
        "--journal",
        journal,
        "--no-color",
        *options,
    )


def stored(journal: str) -> tuple[SessionRecord, ...]:
    with SqliteJournal(journal) as opened:
        return opened.records()


def results(out: str) -> dict[str, dict[str, Any]]:
    return {line["callId"]: line for line in map(json.loads, out.splitlines())}


def test_the_command_line_takes_the_journal_options_and_approve() -> None:
    run = parse_args(["run", "s", "--workspace", "w", "--journal", "j", "--defer-asks"])
    assert isinstance(run, RunCommand)
    assert (run.journal, run.defer_asks, run.durability) == ("j", True, "process")
    power = parse_args(["run", "s", "--workspace", "w", "--journal", "j", "--durability", "power"])
    assert isinstance(power, RunCommand)
    assert power.durability == "power"
    assert parse_args(["approve", "j"]) == ApproveCommand("j")
    assert parse_args(["approve", "j", "c1", "always"]) == ApproveCommand("j", "c1", "always")
    rejected = parse_args(["approve", "j", "c1", "reject", "--feedback", "no"])
    assert rejected == ApproveCommand("j", "c1", "reject", "no")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "s", "--workspace", "w", "--defer-asks"], "--defer-asks needs --journal"),
        (["run", "s", "--workspace", "w", "--durability", "power"], "--durability needs"),
        (["run", "s", "--workspace", "w", "--journal", "j", "--durability", "disk"], "invalid"),
        (
            ["run", "s", "--workspace", "w", "--journal", "j", "--defer-asks", "--yes"],
            "not allowed",
        ),
        (["approve", "j", "c1"], "say how to answer c1"),
        (["approve", "j", "c1", "maybe"], "invalid choice: 'maybe'"),
        (["approve", "j", "c1", "once", "--feedback", "x"], "--feedback goes with reject"),
    ],
)
def test_a_bad_journal_command_line_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    ran = toolfx(capsys, *argv)
    assert ran.code == 2
    assert message in ran.err


@pytest.mark.parametrize("command", [[], ["run"], ["approve"]])
def test_the_help_lists_every_exit_status(
    capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    ran = toolfx(capsys, *command, "--help")
    assert ran.code == 0
    for line in [
        "0  the command ran",
        "1  the session log or the journal could not be written",
        "2  a bad command line",
        "3  run: asks wait in the journal",
        "4  approve: no ask of that call id waits",
        "130  interrupted (Ctrl-C): the running calls were cancelled and recorded",
    ]:
        assert line in ran.out, line


@pytest.mark.parametrize("interpreter", ["sync", "asyncio", "trio"])
def test_a_journaled_run_commits_each_record_once_and_a_second_run_replays_it(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    workspace: Path,
    journal: str,
    interpreter: str,
) -> None:
    session = write_session(tmp_path / "s.jsonl", {"calls": [write("w1", "a.txt", "A\n")]})
    log = tmp_path / "run.jsonl"
    options = ("--yes", "--log", str(log), "--interpreter", interpreter)
    first = journaled(capsys, session, workspace, journal, *options)
    assert first.code == 0
    kinds = [type(record) for record in stored(journal)]
    assert kinds == [ToolCallRecord, ToolApprovalRecord, ToolResultRecord]  # one approval
    _, logged = read_log(log.read_text(encoding="utf-8"))
    assert [type(r) for r in logged] == [TurnRecord, *kinds]
    assert stored(journal)[0] == logged[1]  # the log shows what the journal keeps

    (workspace / "a.txt").write_text("changed since\n")
    again = journaled(capsys, session, workspace, journal, "--yes")
    assert again.code == 0
    assert (workspace / "a.txt").read_text() == "changed since\n"  # not written again
    assert "\n↻ replayed write a.txt · 1 line\n" in again.out
    assert "approval" not in again.out.split("summary")[0]  # not asked again
    assert "1 replayed from the journal (not run again)" in again.out
    assert len(stored(journal)) == 3  # a replay journals nothing
    shown = results(journaled(capsys, session, workspace, journal, "--json").out)
    assert shown["w1"]["replayed"] is True
    assert shown["w1"]["tool"] == "write"


def test_the_log_of_a_run_that_replays_replays_byte_for_byte(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, journal: str
) -> None:
    session = write_session(
        tmp_path / "s.jsonl",
        {"calls": [write("w1", "a.txt", "A\n")]},
        {"calls": [read("r1", "a.txt")]},
    )
    assert journaled(capsys, session, workspace, journal, "--yes").code == 0
    log = tmp_path / "again.jsonl"
    again = journaled(capsys, session, workspace, journal, "--log", str(log))
    _, logged = read_log(log.read_text(encoding="utf-8"))
    assert [type(r) for r in logged] == [TurnRecord, ReplayedRecord, TurnRecord, ReplayedRecord]
    assert toolfx(capsys, "replay", str(log), "--no-color").out == again.out


def test_calls_left_in_doubt_are_told_and_only_idempotent_ones_run_again(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, journal: str
) -> None:
    (workspace / "a.txt").write_text("A\n")
    command = {"command": "echo again >> effect.txt"}
    with SqliteJournal(journal) as crashed:  # what a run killed inside both calls leaves
        crashed.append(ToolCallRecord("b1", "b1", "bash", command))
        crashed.append(ToolCallRecord("r1", "r1", "read", {"path": "a.txt"}))
    turn = {"calls": [{"id": "b1", "name": "bash", "arguments": command}, read("r1", "a.txt")]}
    session = write_session(tmp_path / "s.jsonl", turn)
    ran = journaled(capsys, session, workspace, journal, "--yes", "--json")
    assert ran.code == 0
    shown = results(ran.out)
    assert shown["b1"]["tool"] == "bash"
    assert shown["b1"]["error"]["code"] == "IN_DOUBT"
    assert "echo again >> effect.txt" in shown["b1"]["content"]  # what to check
    assert not (workspace / "effect.txt").exists()
    assert not shown["r1"]["isError"]
    assert "call b1 (bash) may already have run" in ran.err
    assert "call r1 (read) was in doubt and ran again" in ran.err
    panels = journaled(capsys, session, workspace, journal)  # settled now: both replayed
    assert panels.out.count("\n↻ replayed ") == 2
    assert "\n↻ replayed bash echo again >> effect.txt · IN_DOUBT · " in panels.out
    assert "\n↻ replayed read a.txt · 1 line\n" in panels.out
    cards = journaled(capsys, session, workspace, journal, "--verbose").out
    assert cards.count("replayed · ") == 2  # verbose: a cyan card each
    assert "replayed · IN_DOUBT" in cards


def test_a_call_id_the_journal_holds_for_another_call_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, journal: str
) -> None:
    (workspace / "a.txt").write_text("A\n")
    first = write_session(tmp_path / "one.jsonl", {"calls": [read("c1", "a.txt")]})
    assert journaled(capsys, first, workspace, journal).code == 0
    other = write_session(tmp_path / "two.jsonl", {"calls": [write("c1", "b.txt", "B\n")]})
    ran = journaled(capsys, other, workspace, journal, "--yes")
    assert ran.code == 0
    assert "CALL_ID_CONFLICT" in ran.out
    assert "call c1 (write) was not run" in ran.err
    assert "the journal holds its id for another call (of `read`)" in ran.err
    assert not (workspace / "b.txt").exists()


def test_a_session_that_repeats_a_call_id_across_turns_is_refused_with_a_journal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, journal: str
) -> None:
    session = write_session(
        tmp_path / "s.jsonl",
        {"calls": [write("c1", "a.txt", "A\n")]},
        {"calls": [read("c2", "a.txt")]},
        {"calls": [read("c1", "a.txt")]},
    )
    ran = journaled(capsys, session, workspace, journal, "--yes")
    assert ran.code == 2
    assert "the call id 'c1' is used in turns 1 and 3" in ran.err
    assert "CALL_ID_CONFLICT" in ran.err
    assert not (workspace / "a.txt").exists()
    assert stored(journal) == ()
    plain = toolfx(capsys, "run", session, "--workspace", str(workspace), "--yes")
    assert plain.code == 2  # the log pairs records by id too
    assert not (workspace / "a.txt").exists()


def test_deferred_asks_wait_for_approve_and_the_next_run_runs_exactly_the_approved(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, journal: str
) -> None:
    session = write_session(
        tmp_path / "s.jsonl",
        {"calls": [write("w1", "a.txt", "A\n"), write("w2", "b.txt", "B\n")]},
        {"calls": [write("w3", "c.txt", "C\n")]},
    )
    deferred = journaled(capsys, session, workspace, journal, "--defer-asks")
    assert deferred.code == 3
    assert "→ deferred (answer it with `toolfx approve`)" in deferred.out
    assert "3 asks wait for an answer in the journal" in deferred.err
    assert "w2 · write asks for edit on: b.txt (why: write b.txt)" in deferred.err
    assert f"toolfx approve {journal} w2 once   # or always, or reject" in deferred.err
    assert not list(workspace.iterdir())

    listed = toolfx(capsys, "approve", journal)
    assert (listed.code, listed.err) == (0, "")
    assert listed.out.startswith(f"3 asks wait in the journal {journal}\n")
    assert f"toolfx approve {journal} w3 once" in listed.out

    unknown = toolfx(capsys, "approve", journal, "nope", "once")
    assert unknown.code == 4
    assert "no ask of the call nope waits" in unknown.err
    assert f"toolfx approve {journal} w1 once" in unknown.err

    answered = toolfx(capsys, "approve", journal, "w1", "once")
    assert answered.code == 0
    assert "w1 · write: edit on a.txt → allowed once" in answered.out
    rejected = toolfx(capsys, "approve", journal, "w3", "reject", "--feedback", "not c.txt")
    assert rejected.code == 0
    assert toolfx(capsys, "approve", journal, "w1", "always").code == 4  # answered already

    resumed = journaled(capsys, session, workspace, journal, "--defer-asks")
    assert resumed.code == 3  # w2 still waits
    assert "approval write · w1: edit a.txt (write a.txt) → allowed once" in resumed.out
    assert "call w1 (write) resumed: its ask was answered" in resumed.err
    assert "The user rejected edit for c.txt, saying: not c.txt" in resumed.out
    assert "1 ask waits for an answer" in resumed.err
    assert sorted(p.name for p in workspace.iterdir()) == ["a.txt"]

    assert toolfx(capsys, "approve", journal, "w2", "always").code == 0
    done = journaled(capsys, session, workspace, journal, "--defer-asks", "--json")
    assert done.code == 0
    shown = results(done.out)
    assert shown["w1"]["replayed"] is True
    assert not shown["w2"]["isError"]
    assert shown["w3"]["error"]["code"] == "DENIED"
    assert sorted(p.name for p in workspace.iterdir()) == ["a.txt", "b.txt"]


def test_approve_needs_an_existing_journal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "none.db"
    ran = toolfx(capsys, "approve", str(missing), "c1", "once")
    assert ran.code == 2
    assert "there is no journal at" in ran.err
    assert not missing.exists()
    foreign = tmp_path / "notes.txt"
    foreign.write_text("not a journal\n")
    refused = toolfx(capsys, "approve", str(foreign))
    assert refused.code == 2
    assert "is not an SQLite database" in refused.err
    assert foreign.read_text() == "not a journal\n"


class FullJournal:
    """A journal whose disk fills at its first `tool/result`."""

    def __init__(self, path: str, *, durability: Durability) -> None:
        self.inner = SqliteJournal(path, durability=durability)

    def append(self, record: SessionRecord) -> None:
        if isinstance(record, ToolResultRecord):
            raise JournalFileError(self.inner.path, "cannot append: database or disk is full")
        self.inner.append(record)

    def records(self) -> tuple[SessionRecord, ...]:
        return self.inner.records()

    def __enter__(self) -> FullJournal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.inner.close()


def test_a_journal_that_cannot_be_written_stops_the_session_with_exit_1(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    workspace: Path,
    journal: str,
) -> None:
    monkeypatch.setattr(_commands, "SqliteJournal", FullJournal)
    session = write_session(
        tmp_path / "s.jsonl",
        {"calls": [write("w1", "a.txt", "A\n")]},
        {"calls": [write("w2", "b.txt", "B\n")]},
    )
    ran = journaled(capsys, session, workspace, journal, "--yes")
    assert ran.code == 1
    assert "cannot write the journal" in ran.err
    assert "database or disk is full" in ran.err
    assert "Traceback" not in ran.err
    assert not (workspace / "b.txt").exists()  # the session stopped after the turn


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"event": "replayed", "call": {"event": "tool/call"}}', "missing"),
        (
            '{"event": "replayed", "call": {"event": "tool/call", "callId": "a", "rootCallId":'
            ' "a", "name": "read", "arguments": {}}, "result": {"event": "tool/result",'
            ' "callId": "b", "result": {"content": [], "isError": false}}}',
            "the result is of call 'b', not 'a' at /result/callId",
        ),
        (
            '{"event": "replayed", "call": {"event": "tool/call", "callId": 1, "rootCallId": "a",'
            ' "name": "read", "arguments": {}}, "result": {}}',
            "at /call/callId",
        ),
    ],
)
def test_a_bad_replayed_line_is_named(line: str, reason: str) -> None:
    header = '{"event": "session", "workspace": "/w", "interpreter": "sync"}'
    with pytest.raises(LogError) as raised:
        read_log(f"{header}\n{line}\n")
    assert str(raised.value).startswith("line 2: ")
    assert reason in str(raised.value)


def test_the_readme_walk_through_of_defer_and_approve_is_what_the_commands_print(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Crash and continue, defer and approve", 1)[1]
    walk = section.split("```console\n")[2].split("```", 1)[0]
    commands = [line[2:].split("   #")[0].split() for line in walk.splitlines() if line[:2] == "$ "]
    printed = [line for line in walk.splitlines() if line[:2] != "$ " and line != "..."]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ws").mkdir()
    write_session(tmp_path / "session.jsonl", {"calls": [write("w1", "a.txt", "A\n")]})
    ran = [toolfx(capsys, *argv[1:]) for argv in commands]
    assert [r.code for r in ran] == [3, 0, 0]
    out = "".join(r.err + r.out for r in ran)
    for line in printed:
        assert line in out, line
    assert (tmp_path / "ws" / "a.txt").read_text() == "A\n"


def test_a_programs_deferred_call_is_answered_by_its_id_and_the_program_runs_again(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, journal: str
) -> None:
    code = "await write(path='a.txt', content='A')\n(await read(path='a.txt'))['lines']"
    program = {"id": "p1", "name": "run_code", "arguments": {"code": code}}
    session = write_session(tmp_path / "s.jsonl", {"calls": [program]})
    options = ("--present", "code", "--defer-asks")
    deferred = journaled(capsys, session, workspace, journal, *options)
    assert deferred.code == 3
    assert f"toolfx approve {journal} p1:code:1 once" in deferred.err
    assert toolfx(capsys, "approve", journal, "p1:code:1", "once").code == 0
    resumed = journaled(capsys, session, workspace, journal, *options, "--json")
    assert resumed.code == 0
    shown = results(resumed.out)
    assert not shown["p1"]["isError"]
    assert shown["p1:code:1"]["parentCallId"] == "p1"  # the answered call ran, under its program
    assert (workspace / "a.txt").read_text() == "A"
    again = results(journaled(capsys, session, workspace, journal, *options, "--json").out)
    assert list(again) == ["p1"]
    assert again["p1"]["replayed"] is True


def test_a_log_that_fills_up_in_a_journaled_run_ends_it_after_that_turn(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    workspace: Path,
    journal: str,
) -> None:
    session = write_session(
        tmp_path / "s.jsonl",
        {"calls": [write("w1", "a.txt", "A\n")]},
        {"calls": [write("w2", "b.txt", "B\n")]},
    )
    header = log_line(SessionHeader(str(workspace), "sync"))
    room = len(header) + len(log_line(TurnRecord(1, 1))) + 2  # full at w1's `tool/call`

    def opening(path: str, mode: str = "r", *args: Any, **options: Any) -> Any:
        return FillingFile(Path(path), room) if mode == "wb" else open(path, mode, *args, **options)

    monkeypatch.setattr(_commands, "open", opening, raising=False)
    ran = journaled(capsys, session, workspace, journal, "--yes", "--log", str(tmp_path / "l"))
    assert ran.code == 1
    assert ran.err.startswith("toolfx: cannot write the log")
    assert len(ran.err.splitlines()) == 1
    assert (workspace / "a.txt").read_text() == "A\n"  # the journal kept its records
    assert [type(r) for r in stored(journal)] == [
        ToolCallRecord,
        ToolApprovalRecord,
        ToolResultRecord,
    ]
    assert not (workspace / "b.txt").exists()  # the session ended with the turn


def test_a_journal_that_cannot_be_one_or_the_log_itself_is_refused_before_anything_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, journal: str
) -> None:
    session = write_session(tmp_path / "s.jsonl", {"calls": [write("w1", "a.txt", "A\n")]})
    folder = journaled(capsys, session, workspace, str(tmp_path), "--yes")
    assert folder.code == 2
    assert "it is a folder" in folder.err
    assert journaled(capsys, session, workspace, journal, "--yes").code == 0
    (workspace / "a.txt").unlink()
    over = journaled(capsys, session, workspace, journal, "--log", journal)
    assert over.code == 2
    assert "writing it would destroy it" in over.err
    rules = tmp_path / "rules.json"
    rules.write_text("[]")
    foreign = journaled(capsys, session, workspace, str(rules), "--rules", str(rules))
    assert foreign.code == 2
    assert f"the journal {rules} is the rules file" in foreign.err
    notes = tmp_path / "notes.txt"
    notes.write_text("not a journal\n")
    other = journaled(capsys, session, workspace, str(notes), "--yes")
    assert other.code == 2
    assert "not an SQLite database" in other.err
    assert not (workspace / "a.txt").exists()


@given(call=call_records, result=result_records)
def test_a_replayed_line_reads_back_as_written(
    call: ToolCallRecord, result: ToolResultRecord
) -> None:
    replayed = ReplayedRecord(call, ToolResultRecord(call.call_id, result.result))
    header = SessionHeader("/ws", "sync")
    text = log_line(header) + "\n" + log_line(replayed) + "\n"
    assert read_log(text) == (header, (replayed,))


def test_a_journal_with_a_bad_record_is_refused_naming_the_row(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, journal: str
) -> None:
    session = write_session(tmp_path / "s.jsonl", {"calls": [write("w1", "a.txt", "A\n")]})
    with SqliteJournal(journal):  # made, then a row written past it
        pass
    with contextlib.closing(sqlite3.connect(journal)) as connection, connection:
        connection.execute(
            "INSERT INTO records (event, call_id, record) VALUES ('tool/call', 'w1', '{}')"
        )
    for ran in (
        journaled(capsys, session, workspace, journal, "--yes"),
        toolfx(capsys, "approve", journal),
    ):
        assert (ran.code, ran.out) == (2, "")
        assert "row 1 is not a toolfx record" in ran.err
    assert not (workspace / "a.txt").exists()


def test_the_journal_is_opened_with_the_durability_asked_for(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    workspace: Path,
    journal: str,
) -> None:
    opened: list[SqliteJournal] = []

    def opening(path: str, *, durability: Durability) -> SqliteJournal:
        opened.append(SqliteJournal(path, durability=durability))
        return opened[-1]

    monkeypatch.setattr(_commands, "SqliteJournal", opening)
    session = write_session(tmp_path / "s.jsonl", {"calls": [write("w1", "a.txt", "A\n")]})
    ran = journaled(capsys, session, workspace, journal, "--yes", "--durability", "power")
    assert ran.code == 0
    assert [j.durability for j in opened] == ["power"]
    assert journaled(capsys, session, workspace, journal).code == 0
    assert [j.durability for j in opened] == ["power", "process"]


@pytest.mark.parametrize(
    "where", ["journal.db", "sub/journal.db", "link/journal.db", "file-link.db", "made-link.db"]
)
def test_a_journal_in_the_workspace_is_refused_the_model_could_change_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, where: str
) -> None:
    (workspace / "sub").mkdir()
    (tmp_path / "elsewhere").symlink_to(workspace)  # a path outside that leads inside
    (tmp_path / "link").symlink_to(workspace / "sub")
    # the journal file itself a link outside to a file inside (SQLite opens the file it names)
    (tmp_path / "file-link.db").symlink_to(workspace / "sub" / "new.db")
    SqliteJournal(workspace / "sub" / "made.db").close()
    (tmp_path / "made-link.db").symlink_to(workspace / "sub" / "made.db")
    session = write_session(tmp_path / "s.jsonl", {"calls": [write("w1", "a.txt", "A\n")]})
    beside = where in {"link/journal.db", "file-link.db", "made-link.db"}  # paths from outside
    inside = str((tmp_path if beside else workspace) / where)
    kept = sorted(str(p) for p in workspace.rglob("*"))
    ran = journaled(capsys, session, workspace, inside, "--yes")
    assert ran.code == 2
    assert "could change it" in ran.err
    assert not (workspace / "a.txt").exists()
    assert sorted(str(p) for p in workspace.rglob("*")) == kept  # nothing made, nothing written
    outside = journaled(capsys, session, workspace, str(tmp_path / "elsewhere.db"), "--yes")
    assert outside.code == 0


def test_a_second_run_over_a_journal_in_use_is_refused_before_anything_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, journal: str
) -> None:
    # two runs at once over one journal would both find w1 new and both run it
    session = write_session(tmp_path / "s.jsonl", {"calls": [write("w1", "a.txt", "A\n")]})
    with exclusive_run(journal):  # another run, still going
        busy = journaled(capsys, session, workspace, journal, "--yes")
        assert busy.code == 2
        assert f"another run holds the journal {journal}" in busy.err
        assert not (workspace / "a.txt").exists()
        assert stored(journal) == ()
        assert toolfx(capsys, "approve", journal).code == 0  # answering needs no lock
    ran = journaled(capsys, session, workspace, journal, "--yes")  # released: it runs
    assert ran.code == 0
    assert (workspace / "a.txt").read_text() == "A\n"
    with exclusive_run(journal):  # and the run let go of it when it ended
        pass


def test_a_run_lock_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    (tmp_path / "j.db-run.lock").symlink_to(tmp_path / "elsewhere")
    locking = exclusive_run(str(tmp_path / "j.db"))
    with pytest.raises(JournalInUseError, match="cannot make the journal's lock file"):
        locking.__enter__()
