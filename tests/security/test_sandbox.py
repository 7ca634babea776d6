"""The sandbox, for real: under Landlock and bubblewrap, through the bash leaf, a command cannot
write outside the workspace nor `.git/config` (nor make a `.git` the workspace lacks), cannot
read a denied secret (also through a symlink), cannot open a TCP connection; it can write in the
workspace and in $TMPDIR, and read the rest, with no approval asked. Under sync and anyio on
asyncio and trio. `auto` with no mechanism asks for every command, saying why.

The folders live outside /tmp (bubblewrap gives each command its own /tmp, which would hide
them for the wrong reason), and each refusal has a positive control beside it. Each escape kind
is recorded in the figures."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest

from tests.leaves_support import LeafSession, failure, text_of, value_of
from tests.security.figures import Figures
from tests.security.support import MECHANISMS, Interpreter, mechanism_param
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.registry import Location
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, CancelSignal, SandboxMechanism
from toolfx.core.tools import ErrorCode, ToolExecutionResult
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import ScriptedProcess, ScriptedProcesses
from toolfx.leaves.bash import bash_tool
from toolfx.leaves.permissions import Permissions
from toolfx.leaves.sandbox import Sandbox
from toolfx.leaves.workspace import Workspace

each_mechanism = pytest.mark.parametrize("mechanism", MECHANISMS)

Layout = Literal["plain", "linked secrets", "linked home"]
"""Where the secrets are: in the home; behind symlinks in it; in a home reached by a symlink."""


class Machine:
    """A real workspace, a fake home holding secrets and a note, and a folder outside."""

    def __init__(
        self,
        base: Path,
        mechanism: SandboxMechanism,
        *,
        layout: Layout = "plain",
        git: bool = True,
        network: bool = False,
    ) -> None:
        self.root = base / "ws"
        (self.root / "sub").mkdir(parents=True)
        if git:
            (self.root / ".git").mkdir()
            (self.root / ".git" / "config").write_text("[core]\n")
        self.home = base / "home"
        self.home.mkdir()
        secrets = base / "elsewhere" if layout == "linked secrets" else self.home
        (secrets / ".ssh").mkdir(parents=True)
        (secrets / ".ssh" / "id_rsa").write_text("PRIVATE KEY")
        (secrets / ".netrc").write_text("machine x password hunter2")
        if layout == "linked secrets":
            (self.home / ".ssh").symlink_to(secrets / ".ssh")
            (self.home / ".netrc").symlink_to(secrets / ".netrc")
        (self.home / "notes.txt").write_text("readable")
        given_home = self.home
        if layout == "linked home":
            given_home = base / "home-link"
            given_home.symlink_to(self.home)
        self.outside = base / "outside"
        self.outside.mkdir()
        (self.outside / "seen.txt").write_text("visible")
        self.asked: list[ApprovalRequest] = []
        workspace = Workspace(str(self.root), Permissions(), state_dir=str(base / "state"))
        sandbox = Sandbox(mode=mechanism, home=str(given_home), network=network)
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
def base() -> Iterator[Path]:
    """A fresh folder outside /tmp (under /var/tmp), removed after the test."""
    made = tempfile.mkdtemp(prefix="toolfx-sandbox-", dir="/var/tmp")
    try:
        yield Path(os.path.realpath(made))
    finally:
        shutil.rmtree(made, ignore_errors=True)


@pytest.fixture
def machine(base: Path, mechanism: SandboxMechanism) -> Machine:
    """A machine whose bash leaf is confined by `mechanism`."""
    return Machine(base, mechanism)


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP listener on 127.0.0.1: its port."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


@each_mechanism
def test_a_command_writes_in_the_workspace_and_its_temp_folder_without_asking(
    machine: Machine, interpreter: Interpreter
) -> None:
    command = 'echo a > sub/made && echo b > "$TMPDIR/t" && cat "$TMPDIR/t" && echo c >> sub/made'
    assert machine.run(interpreter, command) == (0, "b\n")
    assert (machine.root / "sub" / "made").read_text() == "a\nc\n"


@each_mechanism
def test_a_command_cannot_write_outside_the_workspace_but_reads_there(
    machine: Machine, interpreter: Interpreter, mechanism: SandboxMechanism, figures: Figures
) -> None:
    outside = machine.outside
    command = f"ls {outside}; cat {outside}/seen.txt; echo x > {outside}/escaped; touch {outside}/t"
    code, output = machine.run(interpreter, command)
    escaped = sorted(path.name for path in outside.iterdir()) != ["seen.txt"]
    figures.bypass(f"sandbox {mechanism}: write outside", 1, int(escaped))
    assert code != 0
    assert not escaped
    assert output.startswith("seen.txt\nvisible")  # the positive control: it can be read


_FSMONITOR = "[core]\n\tfsmonitor = touch /tmp/pwned\n"


@each_mechanism
def test_a_command_cannot_write_the_git_config(
    machine: Machine, interpreter: Interpreter, mechanism: SandboxMechanism, figures: Figures
) -> None:
    command = f"printf '{_FSMONITOR}' > .git/config; rm -f .git/config; mv .git .g; touch .git/x"
    code, _ = machine.run(interpreter, command, approved=True)
    git = machine.root / ".git"
    escaped = (git / "config").read_text() != "[core]\n" or len(list(git.iterdir())) != 1
    figures.bypass(f"sandbox {mechanism}: write .git", 1, int(escaped))
    assert code != 0
    assert not escaped


@each_mechanism
def test_a_command_cannot_make_a_git_the_workspace_lacks(
    base: Path, mechanism: SandboxMechanism, interpreter: Interpreter, figures: Figures
) -> None:
    machine = Machine(base, mechanism, git=False)
    assert machine.run(interpreter, "echo kept > sub/made && cat sub/made") == (0, "kept\n")
    command = f"mkdir .git && printf '{_FSMONITOR}' > .git/config"
    code, _ = machine.run(interpreter, command, approved=True)
    made = (machine.root / ".git").exists()
    figures.bypass(f"sandbox {mechanism}: make .git", 1, int(made))
    assert code != 0
    assert not made


@pytest.mark.parametrize("mechanism", [mechanism_param("bwrap")])
def test_without_a_git_bwrap_still_lets_a_command_make_entries_at_the_root(
    base: Path, mechanism: SandboxMechanism, interpreter: Interpreter
) -> None:
    machine = Machine(base, mechanism, git=False)
    assert machine.run(interpreter, "echo new > top.txt && cat top.txt") == (0, "new\n")
    assert sorted(path.name for path in machine.root.iterdir()) == ["sub", "top.txt"]


@each_mechanism
@pytest.mark.parametrize("layout", ["plain", "linked secrets", "linked home"])
def test_a_command_cannot_read_a_denied_secret(
    base: Path,
    interpreter: Interpreter,
    mechanism: SandboxMechanism,
    layout: Layout,
    figures: Figures,
) -> None:
    machine = Machine(base, mechanism, layout=layout)
    paths = {machine.home, base / "home-link", base / "elsewhere"}
    reads = " ".join(f"{path}/.ssh/id_rsa {path}/.netrc" for path in sorted(paths))
    lists = " ".join(f"{path}/.ssh" for path in sorted(paths))
    command = f"cat {machine.home}/notes.txt; cat {reads}; ls {lists}"
    _, output = machine.run(interpreter, command)
    leaked = "PRIVATE KEY" in output or "hunter2" in output or "id_rsa" in output.split()
    figures.bypass(f"sandbox {mechanism}: read a secret ({layout})", 1, int(leaked))
    assert not leaked
    assert output.startswith("readable")  # the positive control: the rest of the home is read


@each_mechanism
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


@each_mechanism
def test_a_command_cannot_open_a_tcp_connection(
    machine: Machine,
    interpreter: Interpreter,
    mechanism: SandboxMechanism,
    listener: int,
    figures: Figures,
) -> None:
    command = f"exec 3<>/dev/tcp/127.0.0.1/{listener} && echo connected"
    code, output = machine.run(interpreter, command, approved=True)
    figures.bypass(f"sandbox {mechanism}: tcp connect", 1, int("connected" in output))
    assert code != 0
    assert "connected" not in output


@each_mechanism
def test_with_the_network_allowed_a_command_connects(
    base: Path, mechanism: SandboxMechanism, interpreter: Interpreter, listener: int
) -> None:
    machine = Machine(base, mechanism, network=True)
    command = f"exec 3<>/dev/tcp/127.0.0.1/{listener} && echo connected"
    assert machine.run(interpreter, command, approved=True) == (0, "connected\n")


def test_auto_without_a_mechanism_asks_for_every_command_and_says_why() -> None:
    processes = ScriptedProcesses([(lambda argv: True, ScriptedProcess(stdout=b"ok"))])
    session = LeafSession(replies=["allowed-once", "rejected"], processes=processes)
    assert text_of(session.call("bash", command="ls")) == "ok\nexit code 0"
    assert failure(session.call("bash", command="cat x")).error.code == ErrorCode.DENIED
    assert session.asks() == [("bash", ("ls",)), ("bash", ("cat x",))]
    why = "(not sandboxed: no sandbox (bubblewrap or Landlock) is available on this machine)"
    assert all((request.reason or "").endswith(why) for request in session.asked)
    assert [run.confinement for run in processes.runs] == [None]


@each_mechanism
def test_a_command_run_by_root_has_no_capabilities(
    machine: Machine, interpreter: Interpreter
) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root starts with capabilities")
    _, output = machine.run(interpreter, "grep -E '^Cap(Eff|Prm):' /proc/self/status")
    assert [line.split()[1] for line in output.splitlines()] == ["0" * 16] * 2
