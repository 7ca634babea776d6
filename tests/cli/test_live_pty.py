"""The live region in a real pseudo-terminal: while a bash command waits on a FIFO the test holds,
its spinner row (and, with the shell's live output, its first output line) is on the screen;
once the test lets it go, the call's summary line follows and the run exits 0. A tool installed
for the test (a provider under the `toolfx.tools` entry point, found on `PYTHONPATH`) streams its
progress messages the same way, whatever the shell does.

The command opens the FIFO read-write itself (which never blocks), prints a line, then reads a
line from it: the test's writer opens as soon as the command holds the FIFO, and writes only once
it has seen what it waits for. No sleeps: `SAFETY_NET` is only how long an `expect` waits."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pexpect

from tests.cli.support import TOOLFX, spawn_toolfx, write_session
from tests.support import SAFETY_NET

SPINNER_ROW = r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] bash · b1  \d+:\d\d:\d\d"
"""The running call's row: a spinner frame, `tool · call id`, the time it has run."""
COMMAND = "exec 3<>gate; echo first line; read -r go <&3; echo second line"


class Gate:
    """The FIFO `gate` in the workspace and a writer that lets the command go when told."""

    def __init__(self, workspace: Path) -> None:
        self.path = workspace / "gate"
        os.mkfifo(self.path)
        self._release = threading.Event()
        # opening to write waits for the command to open the FIFO: a daemon thread, so a run
        # that never gets there leaves no thread to wait for (its expect fails instead)
        threading.Thread(target=self._let_go, daemon=True).start()

    def _let_go(self) -> None:
        writer = os.open(self.path, os.O_WRONLY)
        self._release.wait()
        os.write(writer, b"go\n")
        os.close(writer)

    def open(self) -> None:
        """Let the command read its line and finish."""
        self._release.set()


def blocked_run(tmp_path: Path) -> tuple[pexpect.spawn, Gate]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    gate = Gate(workspace)
    call = {"id": "b1", "name": "bash", "arguments": {"command": COMMAND, "timeout": 600}}
    session = write_session(tmp_path / "session.jsonl", {"calls": [call]})
    argv = ["run", session, "--workspace", str(workspace), "--yes", "--no-color"]
    child, _ = spawn_toolfx(*argv, width=120)
    return child, gate


def finished(child: pexpect.spawn, gate: Gate) -> None:
    """Let the command go: its summary line comes, and the run exits 0."""
    gate.open()
    child.expect(r"✓ bash exec 3<>gate; .* · exit 0")
    child.expect("1 call: 1 succeeded, 0 failed")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_a_running_command_has_a_spinner_row_until_it_settles(tmp_path: Path) -> None:
    child, gate = blocked_run(tmp_path)
    child.expect(r"● bash · b1  exec 3<>gate")  # its line as it is recorded
    child.expect(SPINNER_ROW)  # drawn while the command waits on the gate
    finished(child, gate)


def test_a_running_commands_output_streams_under_its_row(tmp_path: Path) -> None:
    child, gate = blocked_run(tmp_path)
    child.expect(SPINNER_ROW)
    try:
        child.expect("│ first line")  # the shell's progress message, while the command waits
    finally:
        finished(child, gate)


STREAMING_PROVIDER = """\
from typing import TypedDict

from toolfx.core.tools import Output, ToolRunContext, define_tool


class Gate(TypedDict):
    path: str


def stream(args: Gate, ctx: ToolRunContext) -> str:
    ctx.report_progress(1, None, "first line")
    ctx.report_progress(3, None, "second line\\nthird line")
    with open(args["path"], "rb") as gate:  # waits for the test's writer
        gate.read()
    return "streamed"


def tools(root, rules=None, *, sandbox="auto", environ=None):
    return (
        define_tool(
            name="stream",
            description="Report output lines, then wait on a FIFO.",
            parameters=Gate,
            output=Output(str),
            execute=stream,
        ),
    )
"""


def installed_streaming_tool(folder: Path) -> str:
    """A folder for `PYTHONPATH` holding a provider of the `stream` tool, with its entry point."""
    folder.mkdir()
    (folder / "streaming_tool.py").write_text(STREAMING_PROVIDER, encoding="utf-8")
    info = folder / "streaming_tool-0.dist-info"
    info.mkdir()
    metadata = "Metadata-Version: 2.1\nName: streaming-tool\nVersion: 0\n"
    (info / "METADATA").write_text(metadata, encoding="utf-8")
    points = "[toolfx.tools]\nzz_streaming = streaming_tool:tools\n"
    (info / "entry_points.txt").write_text(points, encoding="utf-8")
    return str(folder)


def test_a_tools_progress_lines_stream_under_its_row_while_it_runs(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    gate = Gate(tmp_path)
    call = {"id": "s1", "name": "stream", "arguments": {"path": str(gate.path)}}
    session = write_session(tmp_path / "session.jsonl", {"calls": [call]})
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = installed_streaming_tool(tmp_path / "site")
    child = pexpect.spawn(
        TOOLFX,
        ["run", session, "--workspace", str(workspace), "--no-color"],
        timeout=SAFETY_NET,  # how long an expect waits: only against a hang
        encoding="utf-8",
        dimensions=(50, 100),
        env=env,
    )
    child.expect(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] stream · s1  \d+:\d\d:\d\d")
    child.expect(r"│ first line\s*│ second line\s*│ third line")  # drawn while the tool waits
    gate.open()
    child.expect(r"✓ stream .* · streamed")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
