"""`toolfx run`, `replay` and `tools` in-process: asks without a terminal, the log, errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.support import Ran, toolfx, write_session
from toolfx.core.records import ToolApprovalRecord, ToolCallRecord, ToolResultRecord
from toolfx.interpreters.cli._log import SessionHeader, TurnRecord, log_line, read_log

WRITE_TURN = {
    "calls": [{"id": "w1", "name": "write", "arguments": {"path": "a.txt", "content": "A\n"}}]
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def run(capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path, *options: str) -> Ran:
    session = write_session(tmp_path / "session.jsonl", WRITE_TURN)
    return toolfx(capsys, "run", session, "--workspace", str(workspace), "--no-color", *options)


def test_yes_allows_each_ask_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    ran = run(capsys, tmp_path, workspace, "--yes")
    assert ran.code == 0
    assert "approval write · w1: edit a.txt (write a.txt) → allowed once" in ran.out
    assert (workspace / "a.txt").read_text() == "A\n"
    assert "1 call: 1 succeeded, 0 failed" in ran.out


def test_without_a_terminal_no_one_approves_an_ask_and_the_model_and_person_are_told(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    log = tmp_path / "session.log"
    ran = run(capsys, tmp_path, workspace, "--log", str(log))
    assert ran.code == 0
    assert "approval write · w1: edit a.txt (write a.txt) → no one to ask" in ran.out
    assert not (workspace / "a.txt").exists()
    _, records = read_log(log.read_text(encoding="utf-8"))
    [approval] = [r for r in records if isinstance(r, ToolApprovalRecord)]
    assert approval.reply == "unavailable"
    [result] = [r for r in records if isinstance(r, ToolResultRecord)]
    assert result.result.error is not None
    told = result.result.error.message
    assert "no one could approve a.txt: no one was there to answer the ask" in told
    assert "rejected" not in told
    assert ran.err == (
        "toolfx: no one could approve 1 ask (no terminal): use --yes, --deny-asks or run in a"
        " terminal\n"
    )


def test_deny_asks_rejects_and_a_rule_can_still_allow(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    assert "→ rejected" in run(capsys, tmp_path, workspace, "--deny-asks").out
    assert not (workspace / "a.txt").exists()
    rules = tmp_path / "rules.json"
    rules.write_text('[{"permission": "edit", "pattern": "*.txt", "action": "allow"}]')
    ran = run(capsys, tmp_path, workspace, "--deny-asks", "--rules", str(rules))
    assert "approval write" not in ran.out
    assert (workspace / "a.txt").read_text() == "A\n"


def test_yes_and_deny_asks_exclude_each_other(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    ran = run(capsys, tmp_path, workspace, "--yes", "--deny-asks")
    assert ran.code == 2
    assert "not allowed with argument" in ran.err


def test_the_log_holds_every_record_and_reads_back_line_for_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    log = tmp_path / "session.log"
    assert run(capsys, tmp_path, workspace, "--yes", "--log", str(log)).code == 0
    text = log.read_text(encoding="utf-8")
    header, records = read_log(text)
    assert header == SessionHeader(str(workspace), "sync")
    kinds = [type(record) for record in records]
    assert kinds == [TurnRecord, ToolCallRecord, ToolApprovalRecord, ToolResultRecord]
    assert [log_line(record) for record in (header, *records)] == text.splitlines()


def test_argument_text_that_is_not_json_fails_that_call_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    bad = {"id": "b1", "type": "function", "function": {"name": "read", "arguments": "{"}}
    good = {
        "id": "g1",
        "type": "function",
        "function": {"name": "glob", "arguments": '{"pattern": "*"}'},
    }
    turn = {"role": "assistant", "tool_calls": [bad, good]}
    session = write_session(tmp_path / "s.jsonl", turn)
    log = tmp_path / "s.log"
    ran = toolfx(capsys, "run", session, "--workspace", str(workspace), "--json", "--log", str(log))
    results = [json.loads(line) for line in ran.out.splitlines()]
    assert [(r["callId"], r["isError"]) for r in results] == [("b1", True), ("g1", False)]
    assert results[0]["error"]["code"] == "INVALID_ARGS"
    assert "The arguments for `read` are not JSON: invalid JSON" in results[0]["content"]
    _, records = read_log(log.read_text(encoding="utf-8"))
    assert records[1] == ToolCallRecord("b1", "b1", "read", "{")


def test_openai_strict_nulls_for_omitted_arguments_are_dropped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("one\n", encoding="utf-8")
    strict = '{"path": "a.txt", "offset": null, "limit": null}'  # as strict mode sends it
    call = {"id": "s1", "type": "function", "function": {"name": "read", "arguments": strict}}
    anthropic = {"type": "tool_use", "id": "s2", "name": "read", "input": {"path": None}}
    session = write_session(
        tmp_path / "s.jsonl",
        {"role": "assistant", "tool_calls": [call]},
        {"role": "assistant", "content": [anthropic]},
    )
    ran = toolfx(capsys, "run", session, "--workspace", str(workspace), "--json")
    results = [json.loads(line) for line in ran.out.splitlines()]
    assert [(r["callId"], r["isError"]) for r in results] == [("s1", False), ("s2", True)]
    assert results[1]["error"]["code"] == "INVALID_ARGS"  # only OpenAI calls are read so


@pytest.mark.parametrize(
    ("make_args", "message"),
    [
        (lambda s, w: ["run", s, "--workspace", str(w / "missing")], "missing does not exist"),
        (lambda s, w: ["run", str(w / "none.jsonl"), "--workspace", str(w)], "does not exist"),
        (lambda s, w: ["replay", s], "s.jsonl, line 1: "),
        (
            lambda s, w: ["run", s, "--workspace", str(w), "--rules", s],
            "the tool provider 'builtin' refused",
        ),
    ],
)
def test_unusable_inputs_exit_2_with_a_message(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    workspace: Path,
    make_args: Callable[[str, Path], list[str]],
    message: str,
) -> None:
    session = write_session(tmp_path / "s.jsonl", WRITE_TURN)
    ran = toolfx(capsys, *make_args(session, workspace))
    assert ran.code == 2
    assert ran.err.startswith("toolfx: ")
    assert message in ran.err


def test_a_malformed_session_line_is_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    session = tmp_path / "s.jsonl"
    session.write_text(json.dumps(WRITE_TURN) + "\n{oops\n")
    ran = toolfx(capsys, "run", str(session), "--workspace", str(workspace))
    assert ran.code == 2
    assert "line 2: not JSON" in ran.err
    assert not (workspace / "a.txt").exists()  # nothing runs before the session is read


BUILTIN = {"read", "write", "edit", "glob", "grep", "bash"}


def test_tools_prints_the_schemas_in_every_form(capsys: pytest.CaptureFixture[str]) -> None:
    plain = json.loads(toolfx(capsys, "tools").out)
    assert {tool["name"] for tool in plain} >= BUILTIN
    read = next(tool for tool in plain if tool["name"] == "read")
    assert read["parameters"]["properties"]["path"]["type"] == "string"
    openai = json.loads(toolfx(capsys, "tools", "--format", "openai").out)
    assert [tool["function"]["name"] for tool in openai] == [tool["name"] for tool in plain]
    assert all(tool["function"]["strict"] for tool in openai)  # the leaves' schemas all can be
    anthropic = json.loads(toolfx(capsys, "tools", "--format", "anthropic").out)
    assert anthropic[0] == {
        "name": plain[0]["name"],
        "description": plain[0]["description"],
        "input_schema": plain[0]["parameters"],
    }
    gemini = toolfx(capsys, "tools", "--format", "gemini")
    declarations = json.loads(gemini.out)["functionDeclarations"]  # one Tool of the REST API
    assert [tool["name"] for tool in declarations] == [tool["name"] for tool in plain]
    assert "additionalProperties" in gemini.err  # each dropped keyword is noted on stderr


def test_mcp_serve_refuses_a_missing_workspace_or_bad_rules(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    missing = toolfx(capsys, "mcp", "serve", "--workspace", str(tmp_path / "nowhere"))
    assert (missing.code, missing.out) == (2, "")
    assert "nowhere does not exist" in missing.err
    rules = tmp_path / "rules.json"
    rules.write_text('[{"permission": "bash", "action": "sometimes"}]')
    bad = toolfx(capsys, "mcp", "serve", "--workspace", str(workspace), "--rules", str(rules))
    assert (bad.code, bad.out) == (2, "")
    assert "rules[0].action: 'sometimes' is not one of allow, ask, deny" in bad.err
    assert toolfx(capsys, "mcp").code == 2  # `serve` is the only MCP command, and it is needed
