"""The sandbox, for real: under Landlock and bubblewrap, through the bash leaf, a command cannot
write outside the workspace nor `.git/config`, cannot read a denied secret, cannot open a TCP
connection; it can write in the workspace and in $TMPDIR, with no approval asked. Under sync and
anyio on asyncio and trio. `auto` with no mechanism asks for every command, saying why."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.leaves_support import LeafSession, failure, text_of, value_of
from tests.security.support import MECHANISMS, Interpreter
from toolfx.core import (
    ApprovalReply,
    ApprovalRequest,
    CancelSignal,
    ErrorCode,
    Location,
    ToolExecutionResult,
)
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.processes import SandboxMechanism
from toolfx.interpreters import (
    AnyioRuntime,
    ScriptedProcess,
    ScriptedProcesses,
    SyncRuntime,
    run_anyio,
    run_sync,
)
from toolfx.leaves import Permissions, Sandbox, Workspace, bash_tool

pytestmark = pytest.mark.parametrize("mechanism", MECHANISMS)


class Machine:
    """A real workspace with a `.git/`, a fake home holding a secret, and a folder outside."""

    def __init__(self, base: Path, mechanism: SandboxMechanism) -> None:
        self.root = base / "ws"
        (self.root / ".git").mkdir(parents=True)
        (self.root / ".git" / "config").write_text("[core]\n")
        (self.root / "sub").mkdir()
        self.home = base / "home"
        (self.home / ".ssh").mkdir(parents=True)
        (self.home / ".ssh" / "id_rsa").write_text("PRIVATE KEY")
        (self.home / ".netrc").write_text("machine x password hunter2")
        (self.home / "notes.txt").write_text("readable")
        self.outside = base / "outside"
        self.outside.mkdir()
        self.asked: list[ApprovalRequest] = []
        workspace = Workspace(str(self.root), Permissions(), state_dir=str(base / "state"))
        sandbox = Sandbox(mode=mechanism, home=str(self.home))
        location = Location()
        location.register(bash_tool(workspace, kill_grace=0.3, sandbox=sandbox))
        self.catalog = location.catalog()

    def bash(
        self, interpreter: Interpreter, command: str, reply: ApprovalReply = "rejected"
    ) -> ToolExecutionResult:
        """Run `command` with the bash leaf; any ask is recorded and answered with `reply`."""

        def answer(request: ApprovalRequest) -> ApprovalReply:
            self.asked.append(request)
            return reply

        call = ToolCall("call", "bash", {"command": command}, CancelSignal())
        result: ToolExecutionResult
        if interpreter == "sync":
            result = run_sync(execute(self.catalog, call), SyncRuntime(approvals=answer))
        else:
            runtime = AnyioRuntime(approvals=answer)
            result = run_anyio(execute(self.catalog, call), interpreter, runtime)
        return result

    def run(
        self, interpreter: Interpreter, command: str, *, approved: bool = False
    ) -> tuple[int | None, str]:
        """The exit code and output of `command`, which must run without an ask (`approved`:
        whatever it asks is allowed once, so only the sandbox stands in its way)."""
        result = self.bash(interpreter, command, "allowed-once" if approved else "rejected")
        value = value_of(result)
        assert approved or self.asked == []
        return value["exit_code"], value["output"]


@pytest.fixture
def machine(tmp_path: Path, mechanism: SandboxMechanism) -> Machine:
    """A machine whose bash leaf is confined by `mechanism`."""
    return Machine(Path(os.path.realpath(tmp_path)), mechanism)


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP listener on 127.0.0.1: its port."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def test_a_command_writes_in_the_workspace_and_its_temp_folder_without_asking(
    machine: Machine, interpreter: Interpreter
) -> None:
    command = 'echo a > sub/made && echo b > "$TMPDIR/t" && cat "$TMPDIR/t" && echo c >> sub/made'
    assert machine.run(interpreter, command) == (0, "b\n")
    assert (machine.root / "sub" / "made").read_text() == "a\nc\n"


def test_a_command_cannot_write_outside_the_workspace(
    machine: Machine, interpreter: Interpreter
) -> None:
    target = machine.outside / "escaped"
    code, _ = machine.run(interpreter, f"echo x > {target}; touch {machine.outside}/t")
    assert code != 0
    assert list(machine.outside.iterdir()) == []


def test_a_command_cannot_write_the_git_config(machine: Machine, interpreter: Interpreter) -> None:
    fsmonitor = "[core]\n\tfsmonitor = touch /tmp/pwned\n"
    command = f"printf '{fsmonitor}' > .git/config; rm -f .git/config; mv .git .g; touch .git/x"
    code, _ = machine.run(interpreter, command, approved=True)
    assert code != 0
    assert (machine.root / ".git" / "config").read_text() == "[core]\n"
    assert sorted(p.name for p in (machine.root / ".git").iterdir()) == ["config"]


def test_a_command_cannot_read_a_denied_secret(
    machine: Machine, interpreter: Interpreter, mechanism: SandboxMechanism
) -> None:
    home = machine.home
    command = f"cat {home}/.ssh/id_rsa {home}/.netrc; ls {home}/.ssh; cat {home}/notes.txt"
    _, output = machine.run(interpreter, command)
    assert "PRIVATE KEY" not in output
    assert "hunter2" not in output
    assert "id_rsa" not in output.splitlines()  # not listed either
    if mechanism == "landlock":  # bubblewrap's /tmp is the call's own: this home is not there
        assert "readable" in output  # the rest of the home folder stays readable


def test_a_command_does_not_see_the_environments_secrets(
    machine: Machine, interpreter: Interpreter, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = {
        "OPENAI_API_KEY": "sk-one",
        "GITHUB_TOKEN": "ghp-two",
        "AWS_SECRET_ACCESS_KEY": "aws-three",
        "my_db_password": "four",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("TOOLFX_PLAIN_SETTING", "kept")
    _, output = machine.run(interpreter, "env; cat /proc/self/environ")
    assert [value for value in secrets.values() if value in output] == []
    assert "TOOLFX_PLAIN_SETTING=kept" in output


def test_a_command_cannot_open_a_tcp_connection(
    machine: Machine, interpreter: Interpreter, listener: int
) -> None:
    command = f"exec 3<>/dev/tcp/127.0.0.1/{listener} && echo connected"
    code, output = machine.run(interpreter, command, approved=True)
    assert code != 0
    assert "connected" not in output


def test_with_the_network_allowed_a_command_connects(
    tmp_path: Path, mechanism: SandboxMechanism, interpreter: Interpreter, listener: int
) -> None:
    machine = Machine(Path(os.path.realpath(tmp_path)), mechanism)
    sandbox = Sandbox(mode=mechanism, home=str(machine.home), network=True)
    location = Location()
    workspace = Workspace(str(machine.root), state_dir=str(tmp_path / "state"))
    location.register(bash_tool(workspace, sandbox=sandbox))
    machine.catalog = location.catalog()
    command = f"exec 3<>/dev/tcp/127.0.0.1/{listener} && echo connected"
    assert machine.run(interpreter, command, approved=True) == (0, "connected\n")


def test_auto_without_a_mechanism_asks_for_every_command_and_says_why(
    mechanism: SandboxMechanism,
) -> None:
    del mechanism  # the same under either: the runner has none
    processes = ScriptedProcesses([(lambda argv: True, ScriptedProcess(stdout=b"ok"))])
    session = LeafSession(replies=["allowed-once", "rejected"], processes=processes)
    assert text_of(session.call("bash", command="ls")) == "ok\nexit code 0"
    assert failure(session.call("bash", command="cat x")).error.code == ErrorCode.DENIED
    assert session.asks() == [("bash", ("ls",)), ("bash", ("cat x",))]
    why = "(not sandboxed: no sandbox (bubblewrap or Landlock) is available on this machine)"
    assert all((request.reason or "").endswith(why) for request in session.asked)
    assert [run.confinement for run in processes.runs] == [None]


def test_a_command_run_by_root_has_no_capabilities(
    machine: Machine, interpreter: Interpreter
) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root starts with capabilities")
    _, output = machine.run(interpreter, "grep -E '^Cap(Eff|Prm):' /proc/self/status")
    assert [line.split()[1] for line in output.splitlines()] == ["0" * 16] * 2
