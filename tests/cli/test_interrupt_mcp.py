"""Ctrl-C (SIGINT) to `toolfx mcp serve` while a client's `bash` call runs: the command is
killed, the server ends with one line and exit 130, no traceback.

The client is this test speaking JSON-RPC lines on the server's stdin and stdout (the handshake
protocol); the call's command writes into a FIFO once it runs, and only then is SIGINT sent.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import IO, Any

from tests.cli.processes import fifos, met
from tests.cli.support import TOOLFX
from tests.support import SAFETY_NET, alive, descendants


def send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
    stdin.flush()


def test_sigint_kills_the_running_call_and_ends_the_server_with_one_line(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (ready,) = fifos(workspace, "ready")
    rules = tmp_path / "rules.json"
    rules.write_text('[{"permission": "bash", "pattern": "*", "action": "allow"}]')
    server = subprocess.Popen(
        [TOOLFX, "mcp", "serve", "--workspace", str(workspace), "--rules", str(rules)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # no terminal: the test's Ctrl-C is its SIGINT
    )
    assert server.stdin is not None
    assert server.stdout is not None
    send(
        server.stdin,
        {
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        },
    )
    assert json.loads(server.stdout.readline())["id"] == 1
    send(server.stdin, {"method": "notifications/initialized"})
    arguments = {"command": "echo ready > ready; sleep 1000", "timeout": 600}
    send(
        server.stdin,
        {"id": 2, "method": "tools/call", "params": {"name": "bash", "arguments": arguments}},
    )
    assert met(ready, server.pid) == b"ready\n"
    running = descendants(server.pid)
    assert running
    os.kill(server.pid, signal.SIGINT)
    _, err = server.communicate(timeout=SAFETY_NET)  # only against a hang

    assert server.returncode == 130, err
    lines = err.decode().splitlines()
    assert [line for line in lines if line.startswith("toolfx:")] == [
        "toolfx: interrupted; the MCP server stopped"
    ]
    assert "Traceback" not in err.decode()
    assert not [pid for pid in running if alive(pid)]  # the call's end was waited for
