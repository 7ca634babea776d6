"""What users expect of a command line: `--version`, the workspace here by default, a demo that
asks for real or keeps its workspace, errors that name the file and suggest what was meant, an
empty session said so, repeated call ids refused, and Gemini's tool list as its API takes it."""

from __future__ import annotations

import json
import re
import shutil
from importlib.metadata import version
from pathlib import Path

import pexpect
import pytest

from tests.cli.support import Ran, spawn_toolfx, toolfx, write_session
from toolfx.core.providers import ToolNote
from toolfx.core.records import Invalid, read_object
from toolfx.interpreters.cli._args import (
    DemoCommand,
    McpServeCommand,
    RunCommand,
    ToolsCommand,
    parse_args,
)
from toolfx.interpreters.cli._providers import merged_notes


def write(call_id: str, path: str, content: str) -> dict[str, object]:
    return {"id": call_id, "name": "write", "arguments": {"path": path, "content": content}}


def read(call_id: str, path: str) -> dict[str, object]:
    return {"id": call_id, "name": "read", "arguments": {"path": path}}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


# --version ---------------------------------------------------------------------------------------


def test_version_is_the_installed_distributions(capsys: pytest.CaptureFixture[str]) -> None:
    ran = toolfx(capsys, "--version")
    assert (ran.code, ran.out) == (0, f"toolfx {version('toolfx-interpreters')}\n")


# --workspace -------------------------------------------------------------------------------------


def test_every_command_with_a_workspace_defaults_to_the_current_folder() -> None:
    assert parse_args(["run", "s.jsonl"]) == RunCommand("s.jsonl", ".")
    assert parse_args(["tools"]) == ToolsCommand(workspace=".")
    assert parse_args(["mcp", "serve"]) == McpServeCommand(workspace=".")


def test_run_without_workspace_works_in_the_current_folder(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = write_session(tmp_path / "s.jsonl", {"calls": [write("w1", "a.txt", "A\n")]})
    monkeypatch.chdir(workspace)
    ran = toolfx(capsys, "run", session, "--yes", "--json")
    assert ran.code == 0, ran.err
    assert (workspace / "a.txt").read_text() == "A\n"


# demo --interactive, --keep ----------------------------------------------------------------------


def test_demo_options_are_parsed() -> None:
    assert parse_args(["demo"]) == DemoCommand()
    assert parse_args(["demo", "--interactive", "--keep"]) == DemoCommand(
        interactive=True, keep=True
    )


def test_the_interactive_demo_asks_at_the_terminal(tmp_path: Path) -> None:
    child, transcript = spawn_toolfx("demo", "--interactive", "--no-color")
    child.expect(r"\[r\]eject")  # the demo's one ask, put to the person at the terminal
    child.send("r")  # one key, as typed: "r\n" in one read is not one key
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    out = transcript.getvalue().replace("\r\n", "\n")
    assert "1 approval asked: rejected 1" in out  # the scripted demo allows it once


def test_the_interactive_demo_without_a_terminal_allows_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ran = toolfx(capsys, "demo", "--interactive", "--no-color")
    assert ran.code == 0
    assert "1 approval asked" in ran.out
    assert "allowed once" not in ran.out  # no one was there to allow it


def kept_workspace(ran: Ran) -> Path:
    """The workspace a `demo --keep` says it kept."""
    found = re.search(r"the demo workspace is kept at (\S+)\n", ran.err)
    assert found is not None, ran.err
    return Path(found[1])


def test_the_demo_keeps_its_workspace_when_asked_and_says_where(
    capsys: pytest.CaptureFixture[str],
) -> None:
    kept = toolfx(capsys, "demo", "--keep", "--no-color")
    root = kept_workspace(kept)
    try:
        assert kept.code == 0
        assert f"workspace {root}" in kept.out  # the session's own header names it
        assert (root / "logs" / "build.log").is_file()
        assert (root / "notes").is_dir()  # what the demo wrote is there to look at
    finally:
        shutil.rmtree(root.parent)
    removed = toolfx(capsys, "demo", "--no-color")
    header = re.search(r"workspace (\S+)\n", removed.out)
    assert header is not None
    assert not Path(header[1]).exists()
    assert "kept" not in removed.err


# errors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (["run", "s.jsonl", "--yse"], "unrecognized arguments: --yse; did you mean --yes?"),
        (["run", "s.jsonl", "--jurnal=j"], "did you mean --journal?"),
        (["demo", "--kep"], "did you mean --keep?"),
        (["rnu"], "invalid choice: 'rnu'"),
        (["rnu"], "did you mean run?"),
        (["tools", "--format", "gemni"], "did you mean gemini?"),
        (["run", "s.jsonl", "--interpreter", "tiro"], "did you mean trio?"),
    ],
)
def test_a_misspelled_option_or_choice_suggests_the_one_meant(
    capsys: pytest.CaptureFixture[str], argv: list[str], meant: str
) -> None:
    ran = toolfx(capsys, *argv)
    assert ran.code == 2
    assert meant in ran.err


def test_an_unknown_option_far_from_any_suggests_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    ran = toolfx(capsys, "run", "s.jsonl", "--zzzzzz")
    assert ran.code == 2
    assert "unrecognized arguments: --zzzzzz\n" in ran.err
    assert "usage: toolfx run" in ran.err  # the command's own usage


def test_file_errors_name_the_file_and_say_what_is_wrong(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    session = write_session(tmp_path / "s.jsonl", {"calls": [read("r1", "a.txt")]})
    folder = tmp_path / "folder"
    folder.mkdir()
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\n")
    ws = ("--workspace", str(workspace))
    cases = {
        ("run", str(tmp_path / "nope.jsonl"), *ws): f"the session file {tmp_path}/nope.jsonl does",
        ("run", str(folder), *ws): f"the session file {folder} is a folder",
        ("run", str(binary), *ws): f"the session file {binary} is not UTF-8 text (at byte 0)",
        ("run", session, "--rules", str(folder), *ws): f"the rules file {folder} is a folder",
        ("run", session, "--log", str(folder), *ws): f"the log {folder} is a folder",
        ("run", session, "--log", str(folder / "no" / "l.jsonl"), *ws): (
            f"the log {folder}/no/l.jsonl cannot be written: its folder does not exist"
        ),
        ("replay", str(folder)): f"the log {folder} is a folder",
        ("approve", str(folder)): f"the journal {folder} is a folder",
        ("run", session, "--workspace", session): f"the workspace {session} is not a folder",
    }
    for argv, message in cases.items():
        ran = toolfx(capsys, *argv)
        assert ran.code == 2, argv
        assert ran.err.startswith(f"toolfx: {message}"), (argv, ran.err)


def test_a_misspelled_key_names_the_file_line_and_the_key_meant(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    session = write_session(
        tmp_path / "s.jsonl", {"calls": [{"id": "r1", "nme": "read", "arguments": {}}]}
    )
    ran = toolfx(capsys, "run", session, "--workspace", str(workspace))
    assert ran.code == 2
    assert ran.err == (
        f"toolfx: the session file {session}, line 1: unexpected key 'nme' (did you mean "
        "'name'?) at /calls/0/nme\n"
    )
    rules = tmp_path / "rules.json"
    rules.write_text('[{"permision": "edit", "pattern": "*", "action": "allow"}]')
    good = write_session(tmp_path / "good.jsonl", {"calls": [read("r1", "a.txt")]})
    refused = toolfx(capsys, "run", good, "--workspace", str(workspace), "--rules", str(rules))
    assert refused.code == 2
    assert "did you mean 'permission'?" in refused.err
    assert f"(with the rules file {rules})" in refused.err


def test_reading_an_object_suggests_the_key_a_misspelled_one_meant() -> None:
    with pytest.raises(Invalid, match=r"unexpected key 'argumnts' \(did you mean 'arguments'\?\)"):
        read_object({"id": "x", "argumnts": {}}, ("id",), ("arguments",))
    with pytest.raises(Invalid, match=r"unexpected key 'zzz'$"):
        read_object({"zzz": 1}, ("id",))


# the session -------------------------------------------------------------------------------------


def test_an_empty_session_warns_and_exits_0(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, workspace: Path
) -> None:
    for text in ("", "\n  \n"):
        session = tmp_path / "empty.jsonl"
        session.write_text(text)
        ran = toolfx(capsys, "run", str(session), "--workspace", str(workspace), "--no-color")
        assert ran.code == 0
        assert ran.err == (
            f"toolfx: the session file {session} has no turns (no JSON lines): nothing to run\n"
        )
        assert "0 calls" in ran.out


@pytest.mark.parametrize(
    "turns",
    [
        [{"calls": [write("c1", "a.txt", "A\n")]}, {"calls": [read("c2", "a.txt")]}, None],
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {
                            "name": "write",
                            "arguments": '{"path":"a.txt","content":"A"}',
                        },
                    }
                ],
            },
            {"calls": [read("c2", "a.txt")]},
            None,
        ],
    ],
    ids=["toolfx turns", "an OpenAI turn"],
)
def test_a_call_id_repeated_across_turns_is_refused_in_every_run(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    workspace: Path,
    turns: list[dict[str, object] | None],
) -> None:
    last = {"calls": [read("c1", "a.txt")]}
    session = write_session(tmp_path / "s.jsonl", *(last if t is None else t for t in turns))
    log = tmp_path / "log.jsonl"
    ran = toolfx(capsys, "run", session, "--workspace", str(workspace), "--yes", "--log", str(log))
    assert ran.code == 2
    assert "the call id 'c1' is used in turns 1 and 3" in ran.err
    assert "CALL_ID_CONFLICT" in ran.err
    assert not (workspace / "a.txt").exists()  # nothing ran
    assert not log.exists()


# tools --format gemini ---------------------------------------------------------------------------


def test_gemini_tools_are_one_rest_tool_and_each_note_is_said_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plain = json.loads(toolfx(capsys, "tools").out)
    ran = toolfx(capsys, "tools", "--format", "gemini")
    tool = json.loads(ran.out)
    assert list(tool) == ["functionDeclarations"]  # as `tools: [...]` of generateContent takes it
    assert [d["name"] for d in tool["functionDeclarations"]] == [t["name"] for t in plain]
    notes = ran.err.splitlines()
    assert len(notes) == len(set(notes))
    dropped = [note for note in notes if "/additionalProperties" in note]
    assert len(dropped) == 1  # every tool drops it: one line names them all
    assert all(name in dropped[0] for name in ("read", "write", "bash"))


def test_notes_are_merged_across_tools_in_the_order_first_met() -> None:
    notes = [
        ToolNote("a", "/x", "dropped"),
        ToolNote("b", "/y", "other"),
        ToolNote("b", "/x", "dropped"),
        ToolNote("a", "/x", "dropped"),  # said twice for one tool: once
        ToolNote("c", "", "root"),
    ]
    assert merged_notes(notes) == ["a, b: /x: dropped", "b: /y: other", "c: (root): root"]
