"""The bash leaf: its permission patterns, validation, output bounding and loss reports, timeouts
and cancellation; scripted under the deterministic interpreter and real under asyncio and trio."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from tests.leaves_support import (
    ROOT,
    Backend,
    LeafSession,
    card_of,
    failure,
    run_real,
    text_of,
    value_of,
)
from tests.support import cancel_when, unmarked_soon
from toolfx.core.pipeline import ToolCall, run_call
from toolfx.core.registry import Catalog, Location
from toolfx.core.runtime import (
    ApprovalReply,
    ApprovalRequest,
    CancelSignal,
    Description,
    ProcessSpec,
    RejectedWithFeedback,
    Runtime,
)
from toolfx.core.tools import ErrorCode, TerminalCallCard, TerminalResultCard, ToolExecutionResult
from toolfx.interpreters.cli._approvals import ask_lines
from toolfx.interpreters.testing import ScriptedProcess, ScriptedProcesses
from toolfx.interpreters.testing._memory_spills import MEMORY_SPILLS
from toolfx.leaves._rules import Rule
from toolfx.leaves._shell.rules import review_line
from toolfx.leaves._shell.syntax import parse_line
from toolfx.leaves.bash import bash_tool
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.workspace import Workspace

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
    return ProcessSpec(("/bin/bash", "-c", command), cwd, timeout, 50 * 1024, kill_grace=2.0)


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
    script = ScriptedProcess(stdout=b"partial", stderr=b"boom\n", exit_code=2)
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table(script))
    result = session.call("bash", command="make", description="Build")
    assert text_of(result) == "partial\nboom\nexit code 2"
    value = value_of(result)
    assert (value["exit_code"], value["signal"], value["timed_out"]) == (2, None, False)
    assert value["stdout"] == {"text": "partial", "total_bytes": 7, "lost_bytes": 0}
    assert card_of(result) == TerminalResultCard(
        title="make", output="partial\nboom", exit_code=2, signal=None
    )


def test_bash_is_exclusive_and_shows_a_terminal_card_while_pending() -> None:
    catalog = LeafSession().catalog
    assert catalog.execution_mode("bash", {"command": "ls"}) == "exclusive"
    bash = catalog.get("bash")
    assert bash is not None
    assert bash.present_call is not None
    pending = bash.present_call({"command": "ls -la", "description": "List files"})
    assert pending == TerminalCallCard(title="ls -la", description="List files", cwd=ROOT)


def test_long_output_is_cut_saved_and_the_bytes_not_kept_are_counted() -> None:
    lines = b"".join(b"line %d\n" % number for number in range(1, 9001))
    script = ScriptedProcess(stdout=lines, stderr=b"e" * 60_000)
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table(script))
    result = session.call("bash", command="noisy")
    text = text_of(result)
    assert text.startswith("line 1\nline 2\n")
    assert "line 1998\n\n[output cut: showing 1998 of " in text  # the note within the limits
    assert f"The whole output is saved at {SPILLED}: read it with `read`" in text
    kept = len(lines[: 50 * 1024])
    assert f"[stdout: {len(lines) - kept:,} bytes not kept (of {len(lines):,})]" in text
    assert "[stderr: 8,800 bytes not kept (of 60,000)]" in text
    assert text.endswith("exit code 0")
    saved = session.spills.texts[SPILLED]
    assert saved.encode() == lines[:kept] + b"\n" + b"e" * (50 * 1024)  # the cut line ended
    assert value_of(result)["saved_to"] == SPILLED
    assert len(text.splitlines()) < 2000 + 4  # within the bash leaf's own limits ...
    assert session.spills.texts.keys() == {SPILLED}  # ... so the pipeline spills nothing more


def test_a_command_ignoring_sigterm_is_killed_a_grace_after_its_timeout() -> None:
    script = ScriptedProcess(stdout=b"waiting\n", duration=1000.0, ignores_sigterm=True)
    session = LeafSession(rules=[Rule("bash", "*", "allow")], processes=table(script))
    result = session.call("bash", command="serve", timeout=10)
    assert text_of(result) == "waiting\nkilled by SIGKILL after the 10 s timeout"
    assert card_of(result) == TerminalResultCard(
        title="serve", output="waiting", exit_code=None, signal="SIGKILL"
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


@pytest.fixture(params=["asyncio", "trio"])
def backend(request: pytest.FixtureRequest) -> Backend:
    """Every real command runs under anyio on both backends."""
    name: Backend = request.param
    return name


@pytest.fixture
def root(tmp_path: Path) -> str:
    """A real workspace folder (its real path, symlinks resolved)."""
    return os.path.realpath(tmp_path)


def state_of(root: str) -> str:
    """The state folder of the real workspace at `root`: a sibling folder (outside it)."""
    return root + "-state"


def real_bash(root: str) -> Catalog:
    """A catalog with a bash leaf over `root` that may run anything, with a short kill grace."""
    location = Location()
    workspace = Workspace(root, Permissions([Rule("bash", "*", "allow")]), state_dir=state_of(root))
    location.register(bash_tool(workspace, kill_grace=GRACE))
    return location.catalog()


def run_bash(
    root: str, backend: Backend, call_id: str, signal: CancelSignal | None = None, **args: object
) -> ToolExecutionResult:
    call = ToolCall(call_id, "bash", args, signal or CancelSignal())
    return run_real(real_bash(root), call, backend, spills=f"{state_of(root)}/outputs")


def test_a_100_mb_flood_is_bounded_and_its_loss_reported_exactly(
    root: str, backend: Backend
) -> None:
    result = run_bash(root, backend, "flood", command="yes | head -c 100000000")
    text = text_of(result)
    assert "[stdout: 99,948,800 bytes not kept (of 100,000,000)]" in text
    assert text.endswith("exit code 0")
    assert len(text.encode()) < 50 * 1024 + 1024
    assert f"The whole output is saved at {state_of(root)}/outputs/flood.txt" in text
    saved = Path(state_of(root), "outputs", "flood.txt").read_bytes()
    assert saved == b"y\n" * 25_600


def test_bounded_real_output_is_saved_under_the_state_folder(root: str, backend: Backend) -> None:
    result = run_bash(root, backend, "seq", command="seq 1 5000")
    text = text_of(result)
    assert text.startswith("1\n2\n")
    assert "\n1998\n\n[output cut: showing 1998 of 5000 lines" in text
    assert f"saved at {state_of(root)}/outputs/seq.txt" in text
    expected = "".join(f"{number}\n" for number in range(1, 5001))
    assert Path(state_of(root), "outputs", "seq.txt").read_text() == expected
    assert not Path(root, ".toolfx").exists()


def test_a_real_command_ignoring_sigterm_is_gone_after_timeout_and_grace(
    root: str, backend: Backend
) -> None:
    marker = f"toolfx-mark-{uuid.uuid4().hex}"
    command = f"trap '' TERM; (exec -a {marker} sleep 300) & wait"
    result = run_bash(root, backend, "stubborn", command=command, timeout=1)
    assert text_of(result).endswith("killed by SIGKILL after the 1 s timeout")
    assert unmarked_soon(marker)  # the sleep ignored SIGTERM too


def test_a_real_command_is_cancelled_by_the_calls_signal(root: str, backend: Backend) -> None:
    signal = CancelSignal()
    ready = Path(root, "ready")
    cancel_when(signal, ready.exists, "the user pressed stop")  # once the command runs
    result = run_bash(root, backend, "cancelled", signal, command=": > ready; sleep 300")
    stopped = failure(result)
    assert stopped.error.code == ErrorCode.ABORTED
    assert "the user pressed stop" in stopped.error.message


def test_a_real_command_runs_in_its_folder_and_reports_its_exit(
    root: str, backend: Backend
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
