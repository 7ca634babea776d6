"""Honest diff line numbers: the edit and write cards the CLI shows, and the diff the edit's
model reads, have `git diff`'s hunks (headers and bodies) for any change of texts whose lines are
not repeated (where lines repeat, git may place a change elsewhere among the equal lines by its
own sliding heuristics, see core's `plaintext` diff). An edit's pending card, built from its
arguments alone, says its place is not known yet."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Final

import pexpect
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console, RenderableType

from tests.cli.support import spawn_toolfx, write_session
from tests.leaves_support import LeafSession
from toolfx.core.plaintext import unified_text_diff
from toolfx.core.tools import (
    DiffCallCard,
    DiffResultCard,
    DurableResult,
    FileDiff,
    ToolCallView,
    ToolDefinition,
    ToolResultView,
)
from toolfx.interpreters.cli._cards import call_body, diff_lines, result_body
from toolfx.leaves._diffs import changed_lines, diff_result_card
from toolfx.leaves._tools import workspace_tools
from toolfx.leaves.workspace import Workspace

_GIT_FOUND = shutil.which("git")
assert _GIT_FOUND is not None, "git is on the machine: these tests compare with it"
GIT: Final[str] = _GIT_FOUND

_HEADER: Final = re.compile(r"^(@@ -\S+ \+\S+ @@).*$")
EXAMPLES: Final = 150
"""Examples per property (each runs git once)."""


def git_hunks(old: str | None, new: str) -> list[str]:
    """The hunks of `git diff --no-index -U3` from `old` (None: no file) to `new`, each line
    without its end; headers without git's function context after them."""
    with tempfile.TemporaryDirectory() as folder:
        before, after = Path(folder, "a"), Path(folder, "b")
        if old is not None:
            before.write_bytes(old.encode())
        after.write_bytes(new.encode())
        source = os.devnull if old is None else "a"
        completed = subprocess.run(
            [GIT, "diff", "--no-index", "--no-color", "-U3", "--", source, "b"],
            cwd=folder,
            capture_output=True,
            check=False,
            env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"},
        )
    assert completed.returncode in (0, 1), completed.stderr
    lines = completed.stdout.decode().split("\n")[:-1]
    first = next((n for n, line in enumerate(lines) if line.startswith("@@")), len(lines))
    return [_HEADER.sub(r"\1", line) for line in lines[first:]]


def headers(lines: list[str]) -> list[str]:
    """The hunk headers among diff lines."""
    return [line for line in lines if line.startswith("@@")]


def card_hunks(old: str, new: str) -> list[str]:
    """The hunks of the completed card the file leaves make for a change of `old` to `new`."""
    (diff,) = diff_result_card("t", "f", changed_lines(old, new)).diffs
    return list(diff_lines(diff))[2:]


def model_hunks(old: str, new: str) -> list[str]:
    """The hunks of the diff the edit's model reads."""
    return unified_text_diff("f", old, new).split("\n")[2:-1]


def completed_card(session: LeafSession, name: str, **arguments: str) -> ToolResultView | None:
    """The completed card of a call of the leaf `name` in `session`, as a replay renders it."""
    result = session.call(name, **arguments)
    present = leaf(name).present_result
    assert present is not None
    return present(arguments, DurableResult.of(result))


def pending_card(name: str, **arguments: str) -> ToolCallView | None:
    """The pending card of a call of the leaf `name`, from its arguments alone."""
    present = leaf(name).present_call
    assert present is not None
    return present(arguments)


def leaf(name: str) -> ToolDefinition[Any, Any]:
    """The leaf called `name`, over a fresh workspace (for its presenters)."""
    return next(tool for tool in workspace_tools(Workspace("/ws")) if tool.name == name)


def shown(renderable: RenderableType) -> str:
    """What a plain terminal 200 columns wide shows for `renderable`."""
    out = io.StringIO()
    Console(file=out, width=200, color_system=None, highlight=False).print(renderable)
    return out.getvalue()


def text_of(lines: list[str], ended: bool) -> str:
    """Lines joined into a text, its last line ended or not."""
    text = "".join(f"{line}\n" for line in lines)
    return text if ended or not text else text[:-1]


distinct_lines = st.lists(st.text(alphabet="ab \t\r", max_size=3), unique=True, max_size=30)


@settings(max_examples=EXAMPLES)
@given(old=distinct_lines, new=distinct_lines, old_ended=st.booleans(), new_ended=st.booleans())
def test_any_change_of_texts_without_repeated_lines_has_gits_hunks(
    old: list[str], new: list[str], old_ended: bool, new_ended: bool
) -> None:
    before, after = text_of(old, old_ended), text_of(new, new_ended)
    expected = git_hunks(before, after)
    assert card_hunks(before, after) == expected
    assert model_hunks(before, after) == expected


@given(old=st.text(alphabet="ab\n\r", max_size=120), new=st.text(alphabet="ab\n\r", max_size=120))
def test_the_cards_hunks_are_the_whole_files_for_any_texts(old: str, new: str) -> None:
    """The card holds only the changed lines with their context, numbered from where they start:
    its hunks are those of the whole file's diff, repeated lines or not."""
    assert card_hunks(old, new) == model_hunks(old, new)


@st.composite
def changes_in_a_long_file(draw: st.DrawFn) -> tuple[str, str]:
    """A file of 100 to 300 distinct lines and the file with a random run of it replaced by a
    random run of new lines (either may be empty), somewhere in its middle."""
    size = draw(st.integers(100, 300))
    start = draw(st.integers(size // 4, size - size // 4))
    removed = draw(st.integers(0, 8))
    added = draw(st.integers(0 if removed else 1, 8))
    lines = [f"line {n}" for n in range(1, size + 1)]
    changed = [*lines[:start], *(f"new {n}" for n in range(added)), *lines[start + removed :]]
    return text_of(lines, ended=True), text_of(changed, ended=True)


@settings(max_examples=EXAMPLES)
@given(change=changes_in_a_long_file())
def test_a_change_in_the_middle_of_a_long_file_has_gits_hunks(change: tuple[str, str]) -> None:
    before, after = change
    expected = git_hunks(before, after)
    assert card_hunks(before, after) == expected
    assert model_hunks(before, after) == expected


# the edit leaf, end to end ----------------------------------------------------------------------

TWO_HUNDRED: Final = "".join(f"line {n}\n" for n in range(1, 201))


def edit_card(text: str, old: str, new: str) -> DiffResultCard:
    """The completed card of an edit of the file `text` (read first) replacing `old` by `new`."""
    session = LeafSession({"/ws/f.txt": text}, replies=["allowed-once"])
    session.call("read", path="f.txt")
    card = completed_card(session, "edit", path="f.txt", old=old, new=new)
    assert isinstance(card, DiffResultCard), card
    return card


def test_an_edit_in_the_middle_of_a_200_line_file_is_numbered_as_git_numbers_it() -> None:
    card = edit_card(TWO_HUNDRED, "line 101\n", "one hundred and one\nand a bit\n")
    (diff,) = card.diffs
    assert diff.start_line == 98
    assert headers(list(diff_lines(diff))) == ["@@ -98,7 +98,8 @@"]
    assert "@@ -98,7 +98,8 @@" in shown(result_body(card))
    new = TWO_HUNDRED.replace("line 101\n", "one hundred and one\nand a bit\n")
    assert list(diff_lines(diff))[2:] == git_hunks(TWO_HUNDRED, new)


def test_edits_at_the_start_and_at_the_end_are_numbered_as_git_numbers_them() -> None:
    start = edit_card(TWO_HUNDRED, "line 1\n", "first\n")
    assert headers(list(diff_lines(start.diffs[0]))) == ["@@ -1,4 +1,4 @@"]
    end = edit_card(TWO_HUNDRED, "line 200\n", "last\n")
    assert headers(list(diff_lines(end.diffs[0]))) == ["@@ -197,4 +197,4 @@"]
    assert headers(git_hunks(TWO_HUNDRED, TWO_HUNDRED.replace("line 200\n", "last\n"))) == [
        "@@ -197,4 +197,4 @@"
    ]


def test_deleting_lines_is_numbered_as_git_numbers_it() -> None:
    card = edit_card(TWO_HUNDRED, "line 50\nline 51\nline 52\n", "")
    lines = list(diff_lines(card.diffs[0]))
    assert headers(lines) == ["@@ -47,9 +47,6 @@"]
    new = TWO_HUNDRED.replace("line 50\nline 51\nline 52\n", "")
    assert lines[2:] == git_hunks(TWO_HUNDRED, new)


def test_a_missing_last_newline_is_marked_as_git_marks_it() -> None:
    old, new = "one\ntwo\nthree", "one\ntwo\nthree\n"
    card = edit_card(old, "three", "three\n")
    lines = list(diff_lines(card.diffs[0]))
    assert lines[2:] == [
        "@@ -1,3 +1,3 @@",
        " one",
        " two",
        "-three",
        "\\ No newline at end of file",
        "+three",
    ]
    assert lines[2:] == git_hunks(old, new)
    assert "\\ No newline at end of file" in shown(result_body(card))


def test_a_new_file_is_numbered_as_git_numbers_it() -> None:
    session = LeafSession(replies=["allowed-once"])
    card = completed_card(session, "write", path="new.txt", content="a\nb\nc")
    assert isinstance(card, DiffResultCard), card
    lines = list(diff_lines(card.diffs[0]))
    assert lines[:3] == ["--- /dev/null", "+++ b/new.txt", "@@ -0,0 +1,3 @@"]
    assert lines[2:] == git_hunks(None, "a\nb\nc")


def test_an_edits_pending_card_says_its_place_is_not_known_yet() -> None:
    card = pending_card("edit", path="f.txt", old="line 101\n", new="101\nand a bit\n")
    assert isinstance(card, DiffCallCard), card
    assert card.diffs[0].start_line is None
    lines = list(diff_lines(card.diffs[0]))
    assert lines == [
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -? +?,2 @@",
        "-line 101",
        "+101",
        "+and a bit",
    ]
    assert "@@ -? +?,2 @@" in shown(call_body(card))


def test_a_diff_known_to_start_at_a_line_numbers_its_hunks_from_it() -> None:
    diff = FileDiff("f", "a\nb\nc\n", "a\nB\nc\n", 40)
    assert headers(list(diff_lines(diff))) == ["@@ -40,3 +40,3 @@"]


def test_at_the_terminal_an_edit_in_the_middle_of_a_file_shows_gits_hunk_header(
    tmp_path: Path,
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "f.txt").write_text(TWO_HUNDRED)
    edit = {"path": "f.txt", "old": "line 101\n", "new": "one hundred and one\nand a bit\n"}
    session = write_session(
        tmp_path / "s.jsonl",
        {"calls": [{"id": "r1", "name": "read", "arguments": {"path": "f.txt", "limit": 1}}]},
        {"calls": [{"id": "e1", "name": "edit", "arguments": edit}]},
    )
    (expected,) = headers(git_hunks(TWO_HUNDRED, TWO_HUNDRED.replace(edit["old"], edit["new"])))
    assert expected == "@@ -98,7 +98,8 @@"
    child, transcript = spawn_toolfx(
        "run", session, "--workspace", str(workspace), "--yes", "--no-color", "--verbose"
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    shown_lines = transcript.getvalue().replace("\r\n", "\n")
    assert "@@ -? +?,2 @@" in shown_lines  # the pending card: the place is found when it runs
    assert expected in shown_lines  # the completed card: the file's own line numbers
