"""The bash leaf: its permission patterns, validation, output saved whole as it comes and shown
bounded, live progress, timeouts and cancellation; scripted under the deterministic interpreter
and real under the sync interpreter and anyio on asyncio and trio."""

from __future__ import annotations

import os
import re
import tracemalloc
import uuid
from pathlib import Path
from typing import Literal, final

import pytest

from tests.leaves_support import (
    ROOT,
    LeafSession,
    card_of,
    failure,
    text_of,
    value_of,
)
from tests.support import cancel_when, unmarked_soon
from toolfx.core.pipeline import ToolCall, execute, run_call
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import (
    ApprovalReply,
    ApprovalRequest,
    CancelSignal,
    Description,
    OutputSink,
    OutputStream,
    ProcessOutcome,
    ProcessRunner,
    ProcessSpec,
    ProgressEvent,
    RejectedWithFeedback,
    Runtime,
    SandboxMechanism,
    SpillError,
    SpillLocation,
    SpillStore,
    SpillWriter,
)
from toolfx.core.tools import ErrorCode, TerminalCallCard, TerminalResultCard, ToolExecutionResult
from toolfx.interpreters import SyncProcessRunner
from toolfx.interpreters._os.spills import AnyioFolderSpills, FolderSpills
from toolfx.interpreters._process_common import READ_CHUNK
from toolfx.interpreters.anyio import AnyioProcessRunner, AnyioRuntime, run_anyio
from toolfx.interpreters.cli._approvals import ask_lines
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import (
    DeterministicInterpreter,
    MemorySpills,
    ScriptedProcess,
    ScriptedProcesses,
)
from toolfx.interpreters.testing._memory_spills import MEMORY_SPILLS
from toolfx.leaves._rules import Rule
from toolfx.leaves._shell.rules import review_line
from toolfx.leaves._shell.syntax import parse_line
from toolfx.leaves.bash import bash_tool
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.workspace import Workspace, WorkspaceLimits
from toolfx.testing._scenarios_bounding import Refusing

GRACE = 0.3
"""The kill grace of the real runs: short, so that the suite stays fast."""


SPILLED = f"{MEMORY_SPILLS}call-1.txt"
"""Where the deterministic interpreter keeps the whole output of the first call."""

OK = ScriptedProcess(stdout=b"ok\n")
"""A command that prints ok."""


def table(script: ScriptedProcess = OK) -> ScriptedProcesses:
    """A process table that runs `script` for any command."""
    return ScriptedProcesses([(lambda argv: True, script)])


def spec(command: str, cwd: str = ROOT, timeout: float = 120.0) -> ProcessSpec:
    """The spec the leaf starts for `command` (default limits)."""
    argv = ("/bin/bash", "-c", command)
    return ProcessSpec(argv, cwd, timeout, 0, kill_grace=2.0, stderr_to_stdout=True)


# permission patterns ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "patterns"),
    [
        ("git status", ("git status",)),
        (
            "git status --short && npm run build | tee log; ls",
            ("git status --short", "npm run build", "tee log", "ls"),
        ),
        ("make || make clean\nmake", ("make", "make clean")),
        ("FOO=1 pytest -x", ("FOO=1 pytest -x",)),
        ("make 2>&1 > build.log", ("make 2>&1 > build.log",)),
        ("cd sub && (make; make install) &", ("cd sub", "make", "make install")),
        ("echo $(rm -rf /tmp/x)", ("echo $(rm -rf /tmp/x)", "rm -rf /tmp/x")),
        ("# build it\nmake all", ("make all",)),
    ],
)
def test_the_patterns_are_the_simple_commands_as_written(
    command: str, patterns: tuple[str, ...]
) -> None:
    assert review_line(parse_line(command), (), cwd=".").patterns == patterns


def test_bash_asks_for_each_command_with_the_line_as_the_reason() -> None:
    processes = table()
    session = LeafSession(replies=["allowed-once"], processes=processes)
    command = "git status --short && npm run build | tee log"
    result = session.call("bash", command=command)
    assert text_of(result) == "ok\nexit code 0"
    assert session.asks() == [("bash", ("git status --short", "npm run build", "tee log"))]
    not_sandboxed = "no sandbox (bubblewrap or Landlock) is available on this machine"
    assert session.asked[0].reason == f"{command}\n(not sandboxed: {not_sandboxed})"
    assert session.asked[0].always == ("git status --short", "npm run build", "tee log")
    assert processes.runs == (spec(command),)


def test_a_deny_rule_after_an_allow_rule_denies() -> None:
    rules = [Rule("bash", "git *", "allow"), Rule("bash", "git push*", "deny")]
    processes = table()
    session = LeafSession(rules=rules, processes=processes)
    assert text_of(session.call("bash", command="git status")) == "ok\nexit code 0"
    for command in ("git push --force", "git status && git push", "env git push"):
        denied = failure(session.call("bash", command=command))
        assert denied.error.code == ErrorCode.DENIED
        assert "git push" in denied.error.message
    assert session.asked == []
    assert [run.argv[2] for run in processes.runs] == ["git status"]


def test_an_always_answer_remembers_exactly_the_commands_shown() -> None:
    replies: list[ApprovalReply] = ["allowed-always", "allowed-always"]

    def answer(request: ApprovalRequest) -> ApprovalReply:
        return replies.pop(0) if replies else "rejected"

    session = LeafSession(replies=answer, processes=table())
    session.call("bash", command="npm run build")
    session.call("bash", command="npm run build > out.log")
    session.call("bash", command="ls -la && npm run build")
    assert session.asks() == [("bash", ("npm run build",)), ("bash", ("ls -la", "npm run build"))]
    assert [request.always for request in session.asked] == [
        ("npm run build",),
        ("ls -la", "npm run build"),
    ]
    assert session.workspace.permissions.rules == (
        Rule("bash", "npm run build", "allow"),
        Rule("bash", "ls -la", "allow"),
        Rule("bash", "npm run build", "allow"),
    )
    denied = failure(session.call("bash", command="npm run build > /tmp/x"))
    assert denied.error.code == ErrorCode.DENIED  # asked again: the redirection leaves


@pytest.mark.parametrize(
    "command", ["rm *.tmp", "echo $HOME", "git status > /etc/x", "A=1 make", "eval ls", "ls ("]
)
def test_a_command_that_is_not_contained_offers_no_always(command: str) -> None:
    session = LeafSession(replies=["allowed-always"], processes=table())
    session.call("bash", command=command)
    assert session.asked[0].always == ()
    assert session.workspace.permissions.rules == ()


def test_a_command_past_the_bounds_is_refused_before_asking() -> None:
    session = LeafSession(processes=table())
    for command in ("echo " + "x" * 5000, "echo " + "$(" * 100):
        refused = failure(session.call("bash", command=command))
        assert refused.error.code == ErrorCode.INVALID_ARGS
    assert session.asked == []


def test_a_redirection_through_a_symlink_out_of_the_workspace_is_not_covered() -> None:
    rules = [Rule("bash", "git status*", "allow")]
    session = LeafSession(rules=rules, replies=["allowed-once"], processes=table())
    session.fs.add_symlink(f"{ROOT}/link", "/elsewhere")
    session.call("bash", command="git status > inside.txt")
    session.call("bash", command="git status > link/x")
    assert session.asks() == [("bash", ("git status > link/x",))]


def test_a_rejection_runs_nothing_and_feedback_reaches_the_model() -> None:
    processes = table()
    rejected = LeafSession(replies=["rejected"], processes=processes)
    assert failure(rejected.call("bash", command="rm -rf x")).error.code == ErrorCode.DENIED
    corrected = LeafSession(replies=[RejectedWithFeedback("use trash")], processes=processes)
    told = failure(corrected.call("bash", command="rm -rf x"))
    assert told.error.code == ErrorCode.DENIED
    assert "use trash" in text_of(told)
    assert processes.runs == ()


# validation and the working folder --------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        ({"command": "  "}, "the command is empty"),
        ({"command": "ls", "timeout": 0}, "timeout must be a positive number of seconds, not 0"),
        ({"command": "ls", "timeout": -5}, "not -5"),
    ],
)
def test_invalid_arguments_ask_nothing(arguments: dict[str, object], complaint: str) -> None:
    session = LeafSession(processes=table())
    result = failure(session.call("bash", **arguments))
    assert result.error.code == ErrorCode.INVALID_ARGS
    assert complaint in result.error.message
    assert session.asked == []


def test_the_timeout_defaults_and_is_clamped() -> None:
    processes = table()
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=processes)
    session.call("bash", command="a", timeout=5)
    session.call("bash", command="b", timeout=10_000)
    session.call("bash", command="c")
    assert [run.timeout for run in processes.runs] == [5.0, 600.0, 120.0]


def test_the_working_folder_resolves_and_outside_asks_first() -> None:
    processes = table()
    files = {f"{ROOT}/src/a.py": "", "/elsewhere/b": ""}
    session = LeafSession(files, replies=["allowed-once"] * 3, processes=processes)
    session.call("bash", command="ls", cwd="src")
    session.call("bash", command="ls", cwd="/elsewhere")
    assert [run.cwd for run in processes.runs] == [f"{ROOT}/src", "/elsewhere"]
    assert session.asks() == [
        ("bash", ("ls",)),
        ("external_directory", ("/elsewhere",)),
        ("bash", ("ls",)),
    ]
    not_a_folder = failure(session.call("bash", command="ls", cwd="src/a.py"))
    assert not_a_folder.error.message == "src/a.py is a file, not a folder"
    missing = failure(session.call("bash", command="ls", cwd="gone"))
    assert missing.error.message == "gone does not exist"


def test_a_command_that_cannot_start_is_a_failure() -> None:
    session = LeafSession(rules=[Rule("bash", "*", "allow")])  # no script matches
    result = failure(session.call("bash", command="make"))
    assert result.error.code == ErrorCode.TOOL_ERROR
    assert "no scripted process for 'make'" in result.error.message


# results ----------------------------------------------------------------------------------------


def test_a_failing_command_is_a_success_that_reports_its_exit_code() -> None:
    script = ScriptedProcess(stdout=b"partial", stderr=b"boom\n", exit_code=2, duration=1.5)
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table(script))
    result = session.call("bash", command="make", description="Build")
    assert text_of(result) == "partialboom\nexit code 2"  # the bytes as written, as a terminal
    value = value_of(result)
    assert (value["exit_code"], value["signal"], value["timed_out"]) == (2, None, False)
    assert (value["total_lines"], value["total_bytes"], value["saved_to"]) == (1, 12, None)
    assert value["duration"] == 1.5
    assert card_of(result) == TerminalResultCard(
        title="make", output="partialboom", exit_code=2, signal=None, duration=1.5
    )


def test_bash_is_exclusive_and_shows_a_terminal_card_while_pending() -> None:
    catalog = LeafSession().catalog
    assert catalog.execution_mode("bash", {"command": "ls"}) == "exclusive"
    bash = catalog.get("bash")
    assert bash is not None
    assert bash.present_call is not None
    pending = bash.present_call({"command": "ls -la", "description": "List files"})
    assert pending == TerminalCallCard(title="ls -la", description="List files", cwd=ROOT)


def test_long_output_is_saved_whole_and_the_model_sees_its_head_tail_place_and_size() -> None:
    lines = b"".join(b"line %d\n" % number for number in range(1, 9001))
    script = ScriptedProcess(stdout=lines, stderr=b"e" * 60_000)
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table(script))
    result = session.call("bash", command="noisy")
    text = text_of(result)
    size = len(lines) + 60_000
    note = (
        f"[output: 9001 lines, {size} bytes; showing the first 999 lines and the last 1 line; "
        f"all of it saved to {SPILLED}: read it with `read` (offset and limit) or search it "
        "with `grep`]"
    )
    assert text.startswith("line 1\nline 2\n")
    assert f"\nline 999\n{note}\n" in text
    assert text.endswith(f"{note}\n{'e' * (25 * 1024 - 101)}\nexit code 0")
    assert session.spills.saved[SPILLED] == lines + b"e" * 60_000  # every byte, in order
    value = value_of(result)
    assert (value["saved_to"], value["total_lines"], value["total_bytes"]) == (SPILLED, 9001, size)
    assert len(text.splitlines()) <= 2000 + 1  # within the bash leaf's own limits ...
    assert session.spills.saved.keys() == {SPILLED}  # ... so the pipeline spills nothing more


def numbered(count: int, start: int = 1) -> bytes:
    """`count` output lines `line <n>`, numbered from `start`."""
    return b"".join(b"line %d\n" % number for number in range(start, start + count))


def test_each_read_reports_the_newest_complete_lines_as_progress() -> None:
    first = numbered(3) + b"p" * (READ_CHUNK - 21)  # a line that goes on into the next read
    second = b"\r\nline 4\nno end" + b"." * (READ_CHUNK - 15)
    third = b" whole\nline 5\nlast"
    script = ScriptedProcess(stdout=first + second + third)
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table(script))
    session.call("bash", command="make")
    long_line, unended = "p" * 200, "no end" + "." * 194  # lines cut to 200 characters
    assert [(event.progress, event.total, event.message) for event in session.progress] == [
        (3, None, "line 1\nline 2\nline 3"),
        (5, None, f"line 1\nline 2\nline 3\n{long_line}\nline 4"),
        (7, None, f"line 3\n{long_line}\nline 4\n{unended}\nline 5"),
    ]
    assert {(event.call_id, event.tool) for event in session.progress} == {("call-1", "bash")}


def test_a_30000_line_flood_gives_one_progress_event_per_read_and_is_saved_whole() -> None:
    lines = numbered(30_000)
    session = LeafSession(
        rules=[Rule("bash", "*", "allow")], processes=table(ScriptedProcess(stdout=lines))
    )
    result = session.call("bash", command="flood")
    reads = -(-len(lines) // READ_CHUNK)
    assert len(session.progress) == reads == 5
    assert session.progress[-1].progress == 30_000
    assert session.progress[-1].message == "\n".join(f"line {n}" for n in range(29_996, 30_001))
    assert session.spills.saved[SPILLED] == lines
    assert f"[output: 30000 lines, {len(lines)} bytes; " in text_of(result)


@pytest.mark.parametrize(
    "data",
    [
        bytes(set(range(256)) - set(b"\n\r\x0b\x0c\x1c\x1d\x1e")) * 8000,
        b"x" * 10_000_000,
        b"\xff" * 20_000,
    ],
    ids=["binary", "one huge line", "bytes that grow when decoded"],
)
def test_hostile_output_is_bounded_shown_within_the_limits_and_saved_exactly(data: bytes) -> None:
    session = LeafSession(
        rules=[Rule("bash", "*", "allow")], processes=table(ScriptedProcess(stdout=data))
    )
    text = text_of(session.call("bash", command="hostile"))
    assert session.progress == []  # no line ever ended
    assert session.spills.saved == {SPILLED: data}
    shown = text.removesuffix("\nexit code 0")
    assert len(shown.encode()) <= 50 * 1024
    assert (
        f"1 line, {len(data)} bytes; showing the first 1 line and the last 1 line; all of it "
        in shown
    )


def test_past_the_cap_the_bytes_are_counted_and_the_model_told_exactly_what_was_not_saved() -> None:
    lines = numbered(5000)
    session = LeafSession(
        rules=[Rule("bash", "*", "allow")],
        processes=table(ScriptedProcess(stdout=lines)),
        limits=WorkspaceLimits(max_saved_bytes=1000),
    )
    text = text_of(session.call("bash", command="noisy"))
    assert session.spills.saved[SPILLED] == lines[:1000]
    saved_lines = lines[:1000].count(b"\n") + 1  # the last one cut
    assert (
        f"[output: 5000 lines, {len(lines)} bytes; showing the first 999 lines and the last 1000 "
        f"lines; its first 1000 bytes ({saved_lines} lines) saved to {SPILLED}, the "
        f"{len(lines) - 1000} bytes after them not saved (the most one command saves is 1000 "
        "bytes): read it"
    ) in text


def test_output_that_cannot_be_saved_is_still_shown_with_its_exit_and_what_was_lost() -> None:
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table())
    full = Refusing(SpillError("the disk is full"))
    noisy = table(ScriptedProcess(stdout=numbered(3000), exit_code=3, duration=2.5))
    session.interpreter = DeterministicInterpreter(files=session.fs, processes=noisy, spills=full)
    result = session.call("bash", command="noisy")
    text, value = text_of(result), value_of(result)
    shown = numbered(999) + numbered(1000, start=2001)
    lost = len(numbered(3000)) - len(shown)
    assert text == (
        numbered(999).decode()
        + f"[output: 3000 lines, {len(numbered(3000))} bytes; showing the first 999 lines and "
        f"the last 1000 lines; the {lost} bytes between them are lost: the whole could not be "
        "saved (the disk is full)]\n"
        + numbered(1000, start=2001).decode().rstrip("\n")
        + "\nexit code 3"
    )
    assert (value["exit_code"], value["duration"], value["saved_to"]) == (3, 2.5, None)
    assert (value["total_lines"], value["total_bytes"]) == (3000, len(numbered(3000)))
    session.interpreter = DeterministicInterpreter(files=session.fs, processes=table(), spills=full)
    assert text_of(session.call("bash", command="quiet")) == "ok\nexit code 0"


@final
class FullAfter(SpillStore):
    """A spill store over `inner` whose disk fills after `room` bytes (a write past it fails)."""

    def __init__(self, inner: SpillStore, room: int) -> None:
        self.inner, self.room = inner, room

    async def keep(self, call_id: str, tool: str, text: str) -> SpillLocation:
        return await self.inner.keep(call_id, tool, text)

    async def open(self, call_id: str, tool: str) -> SpillWriter:
        return _FullWriter(self, await self.inner.open(call_id, tool))


@final
class _FullWriter(SpillWriter):
    def __init__(self, store: FullAfter, inner: SpillWriter) -> None:
        self.store, self.inner = store, inner

    @property
    def location(self) -> SpillLocation:
        return self.inner.location

    async def write(self, data: bytes) -> int:
        if len(data) > self.store.room:
            await self.inner.close()
            raise SpillError("could not save the whole output: No space left on device")
        self.store.room -= len(data)
        return await self.inner.write(data)

    async def close(self) -> None:
        await self.inner.close()


def _bash_over(session: LeafSession, spills: SpillStore, script: ScriptedProcess) -> None:
    session.interpreter = DeterministicInterpreter(
        files=session.fs, processes=table(script), spills=spills
    )


def test_a_save_that_fails_midway_still_shows_head_tail_exit_code_and_what_is_lost() -> None:
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table())
    lines = numbered(9000)
    _bash_over(session, FullAfter(MemorySpills(), 60_000), ScriptedProcess(lines, exit_code=1))
    result = session.call("bash", command="make")
    text, value = text_of(result), value_of(result)
    assert text.startswith("line 1\nline 2\n")
    assert text.endswith("\nline 9000\nexit code 1")
    shown = re.search(r"showing the first (\d+) lines and the last (\d+) lines", text)
    assert shown is not None
    first, last = int(shown[1]), int(shown[2])
    lost = len(lines) - len(numbered(first)) - len(numbered(last, start=9001 - last))
    assert (
        f"[output: 9000 lines, {len(lines)} bytes; showing the first {first} lines and the last "
        f"{last} lines; the {lost} bytes between them are lost: the whole could not be saved "
        "(could not save the whole output: No space left on device)]\n"
    ) in text
    assert (value["exit_code"], value["saved_to"], value["total_bytes"]) == (1, None, len(lines))


def test_the_budget_of_a_session_spans_its_commands_and_the_model_is_told_when_it_runs_out() -> (
    None
):
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table())
    output = b"x\n" * 40_000  # 80,000 bytes: over the shown limits, so saved
    spills = MemorySpills(budget=100_000)
    _bash_over(session, spills, ScriptedProcess(output))
    first = text_of(session.call("bash", command="one"))
    second = text_of(session.call("bash", command="two"))
    third = value_of(session.call("bash", command="three"))
    assert f"all of it saved to {SPILLED}" in first
    place = f"{MEMORY_SPILLS}call-2.txt"
    assert (
        f"its first 20000 bytes (10000 lines) saved to {place}, the 60000 bytes after them not "
        "saved (the budget of bytes this session may save is used up)"
    ) in second
    assert spills.saved == {SPILLED: output, place: output[:20_000]}
    assert (
        "the whole could not be saved (the 100000 bytes of output this session may save are "
        "used up (0 left))]"
    ) in third["output"]
    assert third["exit_code"] == 0


def test_lines_are_counted_as_read_numbers_them_even_when_a_break_is_split_between_reads() -> None:
    crlf = b"a" * (READ_CHUNK - 1) + b"\r\n"  # "\r" ends one read, "\n" starts the next
    separator = "\u2028".encode()
    split = b"b" * (READ_CHUNK - 2) + separator + b"c\r"  # U+2028 cut after its first 2 bytes
    for data in (crlf + b"end", split, b"\r".join(b"%d%%" % n for n in range(50_000))):
        session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table())
        _bash_over(session, session.spills, ScriptedProcess(data))
        value = value_of(session.call("bash", command="progress"))
        assert value["total_lines"] == len(data.decode().splitlines()), data[-20:]


def test_a_cr_only_flood_is_cut_at_read_lines_and_the_note_counts_them() -> None:
    data = b"".join(b"step %d\r" % n for n in range(9000))
    session = LeafSession(
        rules=[Rule("bash", "*", "allow")], processes=table(ScriptedProcess(stdout=data))
    )
    text = text_of(session.call("bash", command="pip install x"))
    head = text.partition("[output: 9000 lines, ")[0]  # the head ends a line: no joint
    assert text.startswith("step 0\rstep 1\r")
    shown = re.search(r"showing the first (\d+) lines and the last (\d+) lines", text)
    assert shown is not None
    assert len(head.splitlines()) == int(shown[1])
    assert text.endswith("step 8998\rstep 8999\r\nexit code 0")
    # live, a last "\r" is held back (the next read may start with its "\n")
    assert session.progress[-1].progress == 8999
    assert session.progress[-1].message == "\n".join(f"step {n}" for n in range(8994, 8999))


def test_a_command_cancelled_after_printing_keeps_what_it_printed() -> None:
    lines = numbered(9000)
    script = ScriptedProcess(stdout=lines, duration=1000.0)
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table(script))
    call = session.next_call("bash", {"command": "serve"})

    async def program(runtime: Runtime) -> ToolExecutionResult:
        return await runtime.deadline(
            5.0, call.signal, lambda: run_call(runtime, session.catalog, call)
        )

    assert failure(session.interpreter.run(Description(program))).error.code == ErrorCode.ABORTED
    assert session.spills.saved[SPILLED] == lines


def test_a_command_ignoring_sigterm_is_killed_a_grace_after_its_timeout() -> None:
    script = ScriptedProcess(stdout=b"waiting\n", duration=1000.0, ignores_sigterm=True)
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table(script))
    result = session.call("bash", command="serve", timeout=10)
    assert text_of(result) == "waiting\nkilled by SIGKILL after the 10 s timeout"
    assert card_of(result) == TerminalResultCard(
        title="serve",
        output="waiting",
        exit_code=None,
        signal="SIGKILL",
        duration=10.0 + 2.0,
        timed_out=True,
    )


def test_cancelling_the_call_stops_the_command() -> None:
    script = ScriptedProcess(duration=1000.0, ignores_sigterm=True)
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table(script))
    call = session.next_call("bash", {"command": "serve"})

    async def program(runtime: Runtime) -> tuple[ToolExecutionResult, float]:
        result = await runtime.deadline(
            5.0, call.signal, lambda: run_call(runtime, session.catalog, call)
        )
        return result, runtime.now()

    result, now = session.interpreter.run(Description(program))
    assert failure(result).error.code == ErrorCode.ABORTED
    assert now == 5.0 + 2.0  # SIGTERM at 5 s, SIGKILL a grace later


# real commands ----------------------------------------------------------------------------------

RealHost = Literal["sync", "asyncio", "trio"]
"""An interpreter the real commands run under: sync, or anyio on a backend."""


@pytest.fixture(params=["sync", "asyncio", "trio"])
def backend(request: pytest.FixtureRequest) -> RealHost:
    """Every real command runs under the sync interpreter and under anyio on both backends."""
    name: RealHost = request.param
    return name


@pytest.fixture
def root(tmp_path: Path) -> str:
    """A real workspace folder (its real path, symlinks resolved)."""
    return os.path.realpath(tmp_path)


def state_of(root: str) -> str:
    """The state folder of the real workspace at `root`: a sibling folder (outside it)."""
    return root + "-state"


def real_bash(root: str, limits: WorkspaceLimits | None = None) -> Catalog:
    """A catalog with a bash leaf over `root` that may run anything, with a short kill grace."""
    location = Location()
    rules = Permissions([Rule("bash", "*", "allow")])
    workspace = Workspace(root, rules, state_dir=state_of(root), limits=limits)
    location.register(bash_tool(workspace, kill_grace=GRACE))
    return location.catalog()


@final
class CountingRunner(ProcessRunner):
    """A process runner that counts the reads it hands to the run's sink."""

    def __init__(self, inner: ProcessRunner) -> None:
        self.inner = inner
        self.reads = 0

    async def run(
        self, spec: ProcessSpec, signal: CancelSignal, output: OutputSink | None = None
    ) -> ProcessOutcome:
        """The inner run, each read counted on its way to `output`."""

        async def counted(stream: OutputStream, data: bytes) -> None:
            self.reads += 1
            if output is not None:
                await output(stream, data)

        return await self.inner.run(spec, signal, counted)

    def sandboxes(self) -> frozenset[SandboxMechanism]:
        """The inner runner's."""
        return self.inner.sandboxes()


@final
class RealRun:
    """What one real bash call gave: its result, the progress it reported, the reads it made."""

    def __init__(self, result: ToolExecutionResult, progress: list[ProgressEvent], reads: int):
        self.result, self.progress, self.reads = result, progress, reads


def run_real_bash(
    root: str,
    backend: RealHost,
    call_id: str,
    signal: CancelSignal | None = None,
    limits: WorkspaceLimits | None = None,
    **args: object,
) -> RealRun:
    """Run one bash call for real under `backend`; spills in the state folder's `outputs`."""
    call = ToolCall(call_id, "bash", args, signal or CancelSignal())
    progress: list[ProgressEvent] = []
    folder = f"{state_of(root)}/outputs"
    description = execute(real_bash(root, limits), call)
    result: ToolExecutionResult
    if backend == "sync":
        runner = CountingRunner(SyncProcessRunner())
        runtime = SyncRuntime(
            lambda request: "allowed-once",
            processes=runner,
            spills=FolderSpills(folder),
            progress=progress.append,
        )
        result = run_sync(description, runtime)
    else:
        runner = CountingRunner(AnyioProcessRunner())
        anyio_runtime = AnyioRuntime(
            lambda request: "allowed-once",
            processes=runner,
            spills=AnyioFolderSpills(folder),
            progress=progress.append,
        )
        result = run_anyio(description, backend, anyio_runtime)
    return RealRun(result, progress, runner.reads)


def run_bash(
    root: str, backend: RealHost, call_id: str, signal: CancelSignal | None = None, **args: object
) -> ToolExecutionResult:
    return run_real_bash(root, backend, call_id, signal, None, **args).result


def told_place(text: str) -> str:
    """The place the model is told the whole output is saved at."""
    found = re.search(r"saved to (\S+?): read it with `read`", text)
    assert found is not None, text
    return found.group(1)


def test_a_command_printing_30000_lines_leaves_them_all_where_the_model_is_told(
    root: str, backend: RealHost
) -> None:
    result = run_bash(root, backend, "seq", command="seq 1 30000")
    text = text_of(result)
    expected = "".join(f"{number}\n" for number in range(1, 30_001)).encode()
    assert len(expected) == 168_894
    assert "[output: 30000 lines, 168894 bytes; showing the first 999 lines and the last " in text
    place = told_place(text)
    assert place == f"{state_of(root)}/outputs/seq.txt" == value_of(result)["saved_to"]
    saved = Path(place).read_bytes()
    assert saved == expected
    assert saved.count(b"\n") == 30_000
    assert text.startswith("1\n2\n")
    assert text.endswith("\n29999\n30000\nexit code 0")
    assert len(text.splitlines()) <= 2000 + 1
    assert not Path(root, ".toolfx").exists()


def test_stdout_and_stderr_are_one_stream_in_the_order_written(
    root: str, backend: RealHost
) -> None:
    command = "for i in $(seq 1 3000); do echo out$i; echo err$i >&2; done"
    result = run_bash(root, backend, "mixed", command=command)
    expected = "".join(f"out{i}\nerr{i}\n" for i in range(1, 3001))
    assert Path(told_place(text_of(result))).read_text() == expected
    value = value_of(result)
    assert (value["total_lines"], value["total_bytes"]) == (6000, len(expected))


def test_a_flood_reports_at_most_one_progress_event_per_read(root: str, backend: RealHost) -> None:
    run = run_real_bash(root, backend, "flood", command="yes | head -n 200000")
    assert 1 <= len(run.progress) <= run.reads < 200_000 // 10
    progress = [event.progress for event in run.progress]
    assert progress == sorted(set(progress))
    assert progress[-1] == 200_000
    assert {event.message for event in run.progress} == {"y\ny\ny\ny\ny"}
    assert {(event.call_id, event.tool, event.total) for event in run.progress} == {
        ("flood", "bash", None)
    }


def test_hostile_output_without_line_breaks_is_bounded_and_saved_exactly(
    root: str, backend: RealHost
) -> None:
    command = "head -c 3000000 /dev/zero | tr '\\0' '\\377'; head -c 2000000 /dev/zero | tr '\\0' x"
    run = run_real_bash(root, backend, "hostile", command=command)
    assert run.progress == []  # no line ever ended
    text = text_of(run.result)
    assert len(text.encode()) <= 50 * 1024 + 64
    assert "[output: 1 line, 5000000 bytes; showing the first 1 line and the last 1 line;" in text
    assert text.endswith("xxxx\nexit code 0")
    assert Path(told_place(text)).read_bytes() == b"\xff" * 3_000_000 + b"x" * 2_000_000


def test_a_100_mb_flood_is_bounded_in_memory_and_the_model_told_what_the_cap_cut(
    root: str, backend: RealHost
) -> None:
    limits = WorkspaceLimits(max_saved_bytes=1 << 20)
    run_real_bash(root, backend, "warm", command="seq 1 3000")  # imports are not the flood's
    tracemalloc.start()
    try:
        run = run_real_bash(root, backend, "flood", None, limits, command="yes | head -c 100000000")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 << 20  # 0.6 to 0.9 MiB measured: head, tail, reads in flight
    text = text_of(run.result)
    assert text.endswith("exit code 0")
    assert len(text.encode()) < 50 * 1024 + 1024
    place = f"{state_of(root)}/outputs/flood.txt"
    assert (
        f"[output: 50000000 lines, 100000000 bytes; showing the first 999 lines and the last "
        f"1000 lines; its first 1048576 bytes (524288 lines) saved to {place}, the 98951424 "
        "bytes after them not saved (the most one command saves is 1048576 bytes): read it with "
        "`read`"
    ) in text
    assert Path(place).read_bytes() == b"y\n" * 524_288
    assert len(run.progress) <= run.reads


def test_a_command_cancelled_mid_stream_keeps_what_it_printed(root: str, backend: RealHost) -> None:
    signal = CancelSignal()
    ready = Path(root, "ready")
    cancel_when(signal, ready.exists, "the user pressed stop")
    command = "seq 1 30000; : > ready; sleep 300"
    result = run_bash(root, backend, "stopped", signal, command=command)
    assert failure(result).error.code == ErrorCode.ABORTED
    saved = Path(state_of(root), "outputs", "stopped.txt").read_bytes()
    assert saved == "".join(f"{number}\n" for number in range(1, 30_001)).encode()


def test_a_real_command_ignoring_sigterm_is_gone_after_timeout_and_grace(
    root: str, backend: RealHost
) -> None:
    marker = f"toolfx-mark-{uuid.uuid4().hex}"
    command = f"trap '' TERM; (exec -a {marker} sleep 300) & wait"
    result = run_bash(root, backend, "stubborn", command=command, timeout=1)
    assert text_of(result).endswith("killed by SIGKILL after the 1 s timeout")
    assert unmarked_soon(marker)  # the sleep ignored SIGTERM too


def test_a_real_command_is_cancelled_by_the_calls_signal(root: str, backend: RealHost) -> None:
    signal = CancelSignal()
    ready = Path(root, "ready")
    cancel_when(signal, ready.exists, "the user pressed stop")  # once the command runs
    result = run_bash(root, backend, "cancelled", signal, command=": > ready; sleep 300")
    stopped = failure(result)
    assert stopped.error.code == ErrorCode.ABORTED
    assert "the user pressed stop" in stopped.error.message


def test_a_real_command_runs_in_its_folder_and_reports_its_exit(
    root: str, backend: RealHost
) -> None:
    Path(root, "sub").mkdir()
    result = run_bash(root, backend, "pwd", command="pwd; echo oops >&2; exit 3", cwd="sub")
    assert text_of(result) == f"{root}/sub\noops\nexit code 3"


def test_the_cli_approval_shows_what_always_remembers_or_that_it_is_not_offered() -> None:
    session = LeafSession(replies=["allowed-once", "allowed-once"], processes=table())
    session.call("bash", command="git status --short")
    session.call("bash", command="git status > /etc/x")
    offered, withheld = (ask_lines(request) for request in session.asked)
    assert offered[-1] == "always will allow bash, for the rest of this session: git status --short"
    assert withheld[-1] == "always is not offered: nothing here can be remembered safely"


def test_a_real_store_budget_spans_commands_and_its_bytes_on_disk_stop_at_it(
    root: str, backend: RealHost
) -> None:
    folder = f"{state_of(root)}/outputs"
    command = "head -c 300000 /dev/zero | tr '\\0' x"
    calls = [ToolCall(f"flood{n}", "bash", {"command": command}, CancelSignal()) for n in (1, 2)]
    descriptions = [execute(real_bash(root), call) for call in calls]
    if backend == "sync":
        runtime = SyncRuntime(
            lambda request: "allowed-once", spills=FolderSpills(folder, budget=500_000)
        )
        results = [run_sync(description, runtime) for description in descriptions]
    else:
        anyio_runtime = AnyioRuntime(
            lambda request: "allowed-once", spills=AnyioFolderSpills(folder, budget=500_000)
        )
        results = [run_anyio(description, backend, anyio_runtime) for description in descriptions]
    first, second = (text_of(result) for result in results)
    assert f"all of it saved to {folder}/flood1.txt" in first
    assert (
        f"its first 200000 bytes (1 line) saved to {folder}/flood2.txt, the 100000 bytes after "
        "them not saved (the budget of bytes this session may save is used up)"
    ) in second
    assert Path(folder, "flood1.txt").read_bytes() == b"x" * 300_000
    assert Path(folder, "flood2.txt").read_bytes() == b"x" * 200_000
    assert value_of(results[1])["exit_code"] == 0
