"""`--sandbox` on `toolfx run`, `toolfx demo` and `toolfx mcp serve`, down to the bash leaf."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolfx.interpreters.cli._args import DemoCommand, McpServeCommand, RunCommand, parse_args
from toolfx.leaves._tools import builtin_tools


@pytest.mark.parametrize("mode", ["auto", "landlock", "bwrap", "off"])
def test_each_command_that_runs_tools_takes_a_sandbox_mode(mode: str) -> None:
    run = parse_args(["run", "s.jsonl", "--workspace", "w", "--sandbox", mode])
    demo = parse_args(["demo", "--sandbox", mode])
    serve = parse_args(["mcp", "serve", "--sandbox", mode])
    assert isinstance(run, RunCommand)
    assert isinstance(demo, DemoCommand)
    assert isinstance(serve, McpServeCommand)
    assert run.sandbox == demo.sandbox == serve.sandbox == mode


def test_the_sandbox_is_auto_unless_asked_and_an_unknown_mode_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert parse_args(["demo"]) == DemoCommand(sandbox="auto")
    with pytest.raises(SystemExit):
        parse_args(["demo", "--sandbox", "chroot"])
    assert "invalid choice: 'chroot'" in capsys.readouterr().err


def test_the_provider_refuses_an_unknown_mode_and_builds_bash_under_a_known_one(
    tmp_path: Path,
) -> None:
    with pytest.raises(ValueError, match="unknown sandbox mode 'chroot'"):
        builtin_tools(str(tmp_path), sandbox="chroot")
    names = [
        tool.name for tool in builtin_tools(str(tmp_path), sandbox="off", environ={"HOME": "/root"})
    ]
    assert "bash" in names
