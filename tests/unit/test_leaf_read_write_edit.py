"""The file leaves read, write and edit: through the real pipeline, on an in-memory file system
under the deterministic interpreter and on a real folder under asyncio and trio; the security
tests check that nothing outside the workspace is read or written without an approval."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.leaves_support import Answer, LeafSession, catalog_of, run_real, text_of
from toolfx.core.pipeline import ToolCall
from toolfx.core.plaintext import ended_lines, unified_text_diff
from toolfx.core.runtime import ApprovalReply, ApprovalRequest, CancelSignal, RejectedWithFeedback
from toolfx.core.tools import (
    DiffCallCard,
    DiffResultCard,
    DurableResult,
    ErrorCode,
    FileDiff,
    FileLocation,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
)
from toolfx.leaves._diffs import changed_lines
from toolfx.leaves._rules import Rule
from toolfx.leaves._tools import workspace_tools
from toolfx.leaves.workspace import Workspace, WorkspaceLimits


def succeeded(result: ToolExecutionResult) -> ToolExecutionSuccess:
    """The result, which must be a success."""
    assert isinstance(result, ToolExecutionSuccess), result
    return result


def failed(result: ToolExecutionResult, code: ErrorCode = ErrorCode.TOOL_ERROR) -> str:
    """The message of the result, which must be a failure with `code`."""
    assert isinstance(result, ToolExecutionFailure), result
    assert result.error.code == code, result
    assert text_of(result) == result.error.message  # the model sees the failure as it is
    return result.error.message


def meta(result: ToolExecutionResult) -> Any:
    """The result's meta (the completed card's wire form) as plain JSON."""
    return succeeded(result).meta


def leaf(name: str) -> Any:
    """The leaf called `name`, over a fresh workspace (for its presenters)."""
    return next(tool for tool in workspace_tools(Workspace("/ws")) if tool.name == name)


def completed_card(name: str, result: ToolExecutionResult) -> object:
    """The completed card a replay renders from the durable result."""
    return leaf(name).present_result(None, DurableResult.of(result))


# read --------------------------------------------------------------------------------------------

FIVE = "".join(f"line {n}\n" for n in range(1, 6))


def test_read_numbers_the_lines_and_remembers_the_file_as_read() -> None:
    session = LeafSession({"/ws/notes.txt": "alpha\nbeta\n"}, rules=[Rule("edit", "*", "allow")])
    result = session.call("read", path="notes.txt")
    assert text_of(result) == "     1\talpha\n     2\tbeta"
    assert session.asked == []
    succeeded(session.call("edit", path="notes.txt", old="beta", new="gamma"))


def test_read_a_window_tells_where_to_read_on() -> None:
    session = LeafSession({"/ws/five.txt": FIVE})
    result = session.call("read", path="five.txt", offset=2, limit=2)
    assert text_of(result) == (
        "     2\tline 2\n     3\tline 3\n\n"
        "(five.txt has 5 lines; this shows 2-3. Read on with offset=4.)"
    )
    assert succeeded(result).value == {
        "path": "five.txt",
        "offset": 2,
        "lines": [{"number": 2, "text": "line 2"}, {"number": 3, "text": "line 3"}],
        "total_lines": 5,
        "next_offset": 4,
    }
    assert text_of(session.call("read", path="five.txt", offset=9)) == (
        "(five.txt has 5 lines; nothing at line 9)"
    )
    failed(session.call("read", path="five.txt", offset=0), ErrorCode.INVALID_ARGS)


def test_read_cuts_a_long_line() -> None:
    session = LeafSession(
        {"/ws/wide.txt": "x" * 30 + "\nshort\n"}, limits=WorkspaceLimits(max_line_chars=10)
    )
    assert text_of(session.call("read", path="wide.txt")) == (
        "     1\txxxxxxxxxx … [line cut]\n     2\tshort"
    )


def test_read_stops_at_2000_lines() -> None:
    session = LeafSession({"/ws/long.txt": "".join(f"{n}\n" for n in range(1, 2501))})
    value = succeeded(session.call("read", path="long.txt")).value
    assert isinstance(value, dict)
    assert len(value["lines"]) == 2000
    assert value["next_offset"] == 2001
    assert "Read on with offset=2001." in text_of(session.call("read", path="long.txt"))


def test_read_stops_at_50_kb() -> None:
    session = LeafSession({"/ws/big.txt": ("y" * 99 + "\n") * 1000})
    result = session.call("read", path="big.txt")
    value = succeeded(result).value
    assert isinstance(value, dict)
    shown = len(value["lines"])
    assert 400 < shown < 1000
    assert len(text_of(result).encode()) <= 50 * 1024 + 200  # the window plus the note
    assert f"Read on with offset={shown + 1}." in text_of(result)


@pytest.mark.parametrize(
    ("files", "path", "message"),
    [
        (
            {"/ws/blob.bin": b"\x00\x01binary"},
            "blob.bin",
            "blob.bin is a binary file; read refuses it",
        ),
        ({}, "missing.txt", "missing.txt does not exist"),
        ({"/ws/sub/a.txt": "a"}, "sub", "sub is a directory, not a file"),
    ],
)
def test_read_fails_on_what_is_not_a_text_file(
    files: dict[str, str | bytes], path: str, message: str
) -> None:
    assert failed(LeafSession(files).call("read", path=path)) == message


def test_read_card_is_the_result_meta() -> None:
    result = LeafSession({"/ws/src/app.py": "print(1)\n"}).call("read", path="src/app.py")
    assert meta(result) == {
        "card": "read",
        "title": "Read src/app.py",
        "path": "src/app.py",
        "offset": 1,
        "lines": [{"number": 1, "text": "print(1)"}],
        "totalLines": 1,
        "lang": "python",
    }


# write -------------------------------------------------------------------------------------------


def test_write_creates_a_file_and_its_folders() -> None:
    session = LeafSession(replies=["allowed-once"])
    result = session.call("write", path="docs/new.md", content="# Title\nbody\n")
    assert text_of(result) == "Created docs/new.md (2 lines)"
    assert session.text("/ws/docs/new.md") == "# Title\nbody\n"
    assert succeeded(result).value == {
        "path": "docs/new.md",
        "created": True,
        "bytes_written": 13,
        "lines": 2,
        "change": {"before": None, "after": "# Title\nbody\n", "start_line": 1},
    }
    assert meta(result) == {
        "card": "diff",
        "title": "Created docs/new.md",
        "diffs": [{"path": "docs/new.md", "oldText": None, "newText": "# Title\nbody\n"}],
    }
    assert completed_card("write", result) == DiffResultCard(
        diffs=(FileDiff("docs/new.md", None, "# Title\nbody\n"),), title="Created docs/new.md"
    )


def test_write_asks_edit_for_the_path_relative_to_the_root() -> None:
    session = LeafSession({"/ws/a.txt": "old\n"}, replies=["allowed-once"])
    succeeded(session.call("write", path="/ws/./a.txt", content="new\n"))
    assert session.asks() == [("edit", ("a.txt",))]
    assert session.asked[0].reason == "write a.txt"
    assert session.asked[0].tool == "write"


def test_write_over_a_file_shows_the_changed_lines() -> None:
    session = LeafSession({"/ws/five.txt": FIVE}, replies=["allowed-once"])
    new = FIVE.replace("line 5", "LINE FIVE")
    result = session.call("write", path="five.txt", content=new)
    assert text_of(result) == "Wrote 5 lines to five.txt"
    assert session.text("/ws/five.txt") == new
    assert meta(result)["diffs"] == [
        {
            "path": "five.txt",
            "oldText": "line 2\nline 3\nline 4\nline 5\n",
            "newText": "line 2\nline 3\nline 4\nLINE FIVE\n",
            "startLine": 2,
        }
    ]
    assert meta(result)["title"] == "Wrote five.txt"


def test_write_pending_card_shows_the_new_content() -> None:
    assert leaf("write").present_call({"path": "a.txt", "content": "hi\n"}) == DiffCallCard(
        title="Write a.txt",
        diffs=(FileDiff("a.txt", None, "hi\n"),),
        locations=(FileLocation("a.txt"),),
    )


def test_write_rules_allow_without_asking_and_deny() -> None:
    rules = [Rule("edit", "*", "allow"), Rule("edit", "*.lock", "deny")]
    session = LeafSession({"/ws/uv.lock": "pinned"}, rules=rules)
    succeeded(session.call("write", path="a.txt", content="a"))
    assert failed(session.call("write", path="uv.lock", content="x"), ErrorCode.DENIED) == (
        "Denied: permission 'edit' declined: a rule denies uv.lock"
    )
    assert session.asked == []
    assert session.fs.snapshot()["/ws/uv.lock"] == b"pinned"


def test_write_always_is_remembered_so_the_second_write_does_not_ask() -> None:
    session = LeafSession(replies=["allowed-always"])
    succeeded(session.call("write", path="a.txt", content="1"))
    succeeded(session.call("write", path="a.txt", content="2"))
    assert session.asks() == [("edit", ("a.txt",))]
    assert session.text("/ws/a.txt") == "2"


def test_write_rejected_with_feedback_is_a_failure_the_model_reads() -> None:
    session = LeafSession({"/ws/a.txt": "keep"}, replies=[RejectedWithFeedback("use tabs")])
    message = failed(session.call("write", path="a.txt", content="x"), ErrorCode.DENIED)
    assert message == "The user rejected edit for a.txt, saying: use tabs"
    assert session.text("/ws/a.txt") == "keep"


def test_write_plainly_rejected_is_denied() -> None:
    session = LeafSession({"/ws/a.txt": "keep"}, replies=["rejected"])
    message = failed(session.call("write", path="a.txt", content="x"), ErrorCode.DENIED)
    assert message == "Denied: permission 'edit' declined: the user rejected a.txt"
    assert session.text("/ws/a.txt") == "keep"


@pytest.mark.parametrize(
    ("files", "path", "content", "message", "code"),
    [
        (
            {"/ws/sub/a.txt": "a"},
            "sub",
            "x",
            "sub is a directory, not a file",
            ErrorCode.TOOL_ERROR,
        ),
        (
            {"/ws/blob.bin": b"\x00\x01"},
            "blob.bin",
            "x",
            "blob.bin is a binary file; only text files can be changed",
            ErrorCode.TOOL_ERROR,
        ),
        (
            {"/ws/a.txt": "a"},
            "a.txt/inner.txt",
            "x",
            "a.txt/inner.txt has a file where a directory is expected",
            ErrorCode.TOOL_ERROR,
        ),
        (
            {},
            "a.txt",
            "lone \ud800",
            "The arguments for `write` are not JSON: the string holds a lone surrogate "
            "(\\ud800), not valid UTF-8 at /content",
            ErrorCode.INVALID_ARGS,
        ),
    ],
)
def test_write_refuses_before_asking(
    files: dict[str, str | bytes], path: str, content: str, message: str, code: ErrorCode
) -> None:
    session = LeafSession(files, replies=["allowed-once"])
    before = session.fs.snapshot()
    assert failed(session.call("write", path=path, content=content), code) == message
    assert session.asked == []
    assert session.fs.snapshot() == before


def test_write_refuses_when_the_file_changes_while_the_user_is_asked() -> None:
    session: LeafSession

    def change_then_allow(request: ApprovalRequest) -> ApprovalReply:
        session.fs.add_file("/ws/a.txt", "theirs, written meanwhile")
        return "allowed-once"

    session = LeafSession({"/ws/a.txt": "first"}, replies=change_then_allow)
    assert failed(session.call("write", path="a.txt", content="mine")) == (
        "a.txt changed on disk while the write waited; nothing was written. "
        "Read it again, then retry."
    )
    assert session.text("/ws/a.txt") == "theirs, written meanwhile"


# edit --------------------------------------------------------------------------------------------


def edited(
    files: dict[str, str | bytes], **arguments: Any
) -> tuple[LeafSession, ToolExecutionResult]:
    """Read the file, then edit it with `arguments` (the edit allowed once)."""
    session = LeafSession(files, replies=["allowed-once"])
    succeeded(session.call("read", path=arguments["path"]))
    return session, session.call("edit", **arguments)


def test_edit_replaces_the_one_occurrence_and_shows_the_diff() -> None:
    session, result = edited({"/ws/five.txt": FIVE}, path="five.txt", old="line 3", new="THREE")
    assert session.text("/ws/five.txt") == FIVE.replace("line 3", "THREE")
    assert text_of(result) == (
        "Edited five.txt: 1 replacement\n"
        "--- a/five.txt\n+++ b/five.txt\n@@ -1,5 +1,5 @@\n"
        " line 1\n line 2\n-line 3\n+THREE\n line 4\n line 5"
    )
    assert session.asks() == [("edit", ("five.txt",))]
    assert session.asked[0].reason == "edit five.txt"
    assert meta(result) == {
        "card": "diff",
        "title": "Edited five.txt",
        "diffs": [
            {"path": "five.txt", "oldText": FIVE, "newText": FIVE.replace("line 3", "THREE")}
        ],
    }
    value = succeeded(result).value
    assert isinstance(value, dict)
    assert value["replacements"] == 1
    assert value["diff"] == unified_text_diff("five.txt", FIVE, FIVE.replace("line 3", "THREE"))


def test_edit_diff_marks_a_missing_last_newline() -> None:
    assert unified_text_diff("a.txt", "one\ntwo", "one\n2") == (
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n"
        "+2\n\\ No newline at end of file\n"
    )


def test_edit_pending_card_shows_old_and_new_whose_place_is_not_known_yet() -> None:
    assert leaf("edit").present_call(
        {"path": "a.py", "old": "x = 1", "new": "x = 2"}
    ) == DiffCallCard(
        title="Edit a.py",
        diffs=(FileDiff("a.py", "x = 1", "x = 2", None),),
        locations=(FileLocation("a.py"),),
    )


def test_edit_replace_all_replaces_every_occurrence() -> None:
    session, result = edited(
        {"/ws/a.txt": "x = 1\ny = x\nx\n"}, path="a.txt", old="x", new="z", replace_all=True
    )
    assert session.text("/ws/a.txt") == "z = 1\ny = z\nz\n"
    assert text_of(result).startswith("Edited a.txt: 3 replacements\n")


@pytest.mark.parametrize(
    ("text", "old", "message"),
    [
        ("a\nb\n", "c", "old was not found in a.txt. Read the file again to see its current text."),
        (
            "def f():\n    return 1\n",
            "def f():\n  return 1",
            "old was not found in a.txt. It does match if whitespace is ignored: copy the "
            "indentation and line breaks exactly as read.",
        ),
        (
            "x\nx\n",
            "x",
            "old occurs 2 times in a.txt; add surrounding lines to make it unique, "
            "or set replace_all to replace every occurrence",
        ),
    ],
)
def test_edit_that_cannot_apply_fails_without_asking(text: str, old: str, message: str) -> None:
    session, result = edited({"/ws/a.txt": text}, path="a.txt", old=old, new="new")
    assert failed(result) == message
    assert session.asked == []
    assert session.text("/ws/a.txt") == text


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("", "x", "old is empty; to create a file, use write"),
        ("a", "a", "old and new are the same; the edit would change nothing"),
    ],
)
def test_edit_arguments_that_change_nothing_are_invalid(old: str, new: str, message: str) -> None:
    session, result = edited({"/ws/a.txt": "a"}, path="a.txt", old=old, new=new)
    assert failed(result, ErrorCode.INVALID_ARGS) == message
    assert session.asked == []


def test_edit_of_a_missing_file_suggests_write() -> None:
    session = LeafSession(replies=["allowed-once"])
    result = session.call("edit", path="nope.txt", old="a", new="b")
    assert failed(result) == "nope.txt does not exist; to create it, use write"
    assert session.asked == []


def test_edit_refuses_a_file_never_read() -> None:
    session = LeafSession({"/ws/a.txt": "a"}, replies=["allowed-once"])
    assert failed(session.call("edit", path="a.txt", old="a", new="b")) == (
        "a.txt was not edited: it has not been read in this session; read it first"
    )
    assert session.asked == []
    assert session.text("/ws/a.txt") == "a"


def test_edit_refuses_a_file_changed_on_disk_after_the_read() -> None:
    session = LeafSession({"/ws/a.txt": "a"}, replies=["allowed-once"])
    succeeded(session.call("read", path="a.txt"))
    session.fs.add_file("/ws/a.txt", "a, changed by someone else")
    assert failed(session.call("edit", path="a.txt", old="a", new="b")) == (
        "a.txt was not edited: it changed on disk since it was last read; read it again first"
    )
    assert session.text("/ws/a.txt") == "a, changed by someone else"
    succeeded(session.call("read", path="a.txt"))  # a fresh read lets the edit through
    succeeded(session.call("edit", path="a.txt", old="else", new="new"))
    assert session.text("/ws/a.txt") == "a, changed by someone new"


def test_edit_refuses_when_the_file_changes_while_the_user_is_asked() -> None:
    session: LeafSession

    def change_then_allow(request: ApprovalRequest) -> ApprovalReply:
        session.fs.add_file("/ws/a.txt", "one two, theirs")
        return "allowed-once"

    session = LeafSession({"/ws/a.txt": "one two"}, replies=change_then_allow)
    succeeded(session.call("read", path="a.txt"))
    assert failed(session.call("edit", path="a.txt", old="two", new="2")) == (
        "a.txt changed on disk while the edit waited; nothing was written. "
        "Read it again, then retry."
    )
    assert session.text("/ws/a.txt") == "one two, theirs"


def test_a_written_file_may_be_edited_without_a_read() -> None:
    session = LeafSession(rules=[Rule("edit", "*", "allow")])
    succeeded(session.call("write", path="a.txt", content="hello world\n"))
    succeeded(session.call("edit", path="a.txt", old="world", new="there"))
    succeeded(session.call("edit", path="a.txt", old="hello", new="hi"))  # so may an edited one
    assert session.text("/ws/a.txt") == "hi there\n"


def test_edit_cuts_a_long_diff() -> None:
    text = "".join(f"x {n}\n" for n in range(100))
    session = LeafSession(
        {"/ws/a.txt": text},
        rules=[Rule("edit", "*", "allow")],
        limits=WorkspaceLimits(max_lines=20),
    )
    succeeded(session.call("read", path="a.txt"))
    result = session.call("edit", path="a.txt", old="x", new="y", replace_all=True)
    assert session.text("/ws/a.txt") == text.replace("x", "y")
    shown = text_of(result)
    assert shown.endswith("[diff cut at 20 of 203 lines; read the file]")
    assert len(shown.splitlines()) == 22


# security: nothing outside the workspace without an approval ------------------------------------

SECRET = "/secrets/key.txt"
ESCAPES = {  # a way out of /ws to SECRET: the path given and the symlinks that lead out
    "dot-dot": ("../secrets/key.txt", {}),
    "absolute": (SECRET, {}),
    "file link": ("link.txt", {"/ws/link.txt": SECRET}),
    "relative link": ("rel.txt", {"/ws/rel.txt": "../secrets/key.txt"}),
    "folder link": ("vault/key.txt", {"/ws/vault": "/secrets"}),
    "nested dot-dot": ("sub/../../secrets/key.txt", {}),
}
CALLS = {
    "read": {},
    "write": {"content": "pwned"},
    "edit": {"old": "secret", "new": "pwned"},
}


def escape(how: str, replies: Sequence[ApprovalReply] | Answer = ()) -> tuple[LeafSession, str]:
    """A session with a secret outside the workspace and the links `how` needs; the path."""
    path, links = ESCAPES[how]
    session = LeafSession({"/ws/sub/a.txt": "inside", SECRET: "secret"}, replies=replies)
    for link, target in links.items():
        session.fs.add_symlink(link, target)
    return session, path


@pytest.mark.parametrize("how", ESCAPES)
@pytest.mark.parametrize("tool", CALLS)
@pytest.mark.parametrize("reply", ["rejected", "unavailable"])
def test_no_escape_without_approval(how: str, tool: str, reply: ApprovalReply) -> None:
    session, path = escape(how, [reply])
    before = session.fs.snapshot()
    result = session.call(tool, path=path, **CALLS[tool])
    message = failed(result, ErrorCode.DENIED)
    assert message.startswith("Denied: permission 'external_directory' declined:")
    assert "secret" not in text_of(result).replace("/secrets", "")
    assert session.asks() == [("external_directory", (SECRET,))]
    assert session.fs.snapshot() == before


@pytest.mark.parametrize("how", ESCAPES)
def test_an_escape_rejected_with_feedback_writes_nothing(how: str) -> None:
    session, path = escape(how, [RejectedWithFeedback("stay in the workspace")])
    before = session.fs.snapshot()
    message = failed(session.call("write", path=path, content="pwned"), ErrorCode.DENIED)
    assert message == (
        f"The user rejected external_directory for {SECRET}, saying: stay in the workspace"
    )
    assert session.fs.snapshot() == before


@pytest.mark.parametrize("how", ESCAPES)
def test_an_approved_escape_proceeds_asking_edit_for_the_absolute_path(how: str) -> None:
    session, path = escape(how, ["allowed-once"] * 5)
    assert text_of(session.call("read", path=path)) == "     1\tsecret"
    succeeded(session.call("edit", path=path, old="secret", new="edited"))
    assert session.text(SECRET) == "edited"
    succeeded(session.call("write", path=path, content="written"))
    assert session.text(SECRET) == "written"
    assert session.asks() == [
        ("external_directory", (SECRET,)),
        ("external_directory", (SECRET,)),
        ("edit", (SECRET,)),
        ("external_directory", (SECRET,)),
        ("edit", (SECRET,)),
    ]
    assert set(session.fs.snapshot()) == {"/ws/.keep", "/ws/sub/a.txt", SECRET}  # links stay


@pytest.mark.parametrize(
    ("links", "path"),
    [
        ({"/ws/vault": "/secrets"}, "vault/new.txt"),
        ({"/ws/new.txt": "/secrets/new.txt"}, "new.txt"),
    ],
)
def test_no_new_file_outside_through_a_link(links: dict[str, str], path: str) -> None:
    session = LeafSession({SECRET: "secret"}, replies=["rejected"])
    for link, target in links.items():
        session.fs.add_symlink(link, target)
    before = session.fs.snapshot()
    failed(session.call("write", path=path, content="x"), ErrorCode.DENIED)
    assert session.asks() == [("external_directory", ("/secrets/new.txt",))]
    assert session.fs.snapshot() == before


def test_a_deny_rule_after_an_allow_rule_wins() -> None:
    rules = [Rule("edit", "*", "allow"), Rule("edit", "secret.txt", "deny")]
    session = LeafSession({"/ws/secret.txt": "secret"}, rules=rules)
    assert failed(session.call("write", path="secret.txt", content="x"), ErrorCode.DENIED) == (
        "Denied: permission 'edit' declined: a rule denies secret.txt"
    )
    succeeded(session.call("read", path="secret.txt"))
    failed(session.call("edit", path="secret.txt", old="secret", new="x"), ErrorCode.DENIED)
    assert session.text("/ws/secret.txt") == "secret"
    succeeded(session.call("write", path="other.txt", content="x"))
    assert session.asked == []


def test_dot_dot_that_stays_inside_asks_only_edit() -> None:
    session = LeafSession({"/ws/a.txt": "a"}, replies=["allowed-once"])
    succeeded(session.call("write", path="sub/../a.txt", content="b"))
    assert session.asks() == [("edit", ("a.txt",))]
    assert session.text("/ws/a.txt") == "b"


# laws --------------------------------------------------------------------------------------------

PIECES = st.text(alphabet="ab \n", max_size=40)


@given(text=PIECES, old=st.text(alphabet="ab \n", min_size=1, max_size=3), new=PIECES)
def test_edit_with_replace_all_is_str_replace(text: str, old: str, new: str) -> None:
    if old == new:
        return
    session, result = edited({"/ws/f.txt": text}, path="f.txt", old=old, new=new, replace_all=True)
    if old not in text:
        failed(result)
        assert session.text("/ws/f.txt") == text
        return
    assert session.text("/ws/f.txt") == text.replace(old, new)
    value = succeeded(result).value
    assert isinstance(value, dict)
    assert value["replacements"] == text.count(old)


@given(st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=300))
def test_write_then_read_round_trips(content: str) -> None:
    session = LeafSession(rules=[Rule("edit", "*", "allow")])
    succeeded(session.call("write", path="f.txt", content=content))
    assert session.fs.snapshot()["/ws/f.txt"] == content.encode()
    value = succeeded(session.call("read", path="f.txt")).value
    assert isinstance(value, dict)
    assert [line["text"] for line in value["lines"]] == content.splitlines()


@given(old=st.text(alphabet="ab\n", max_size=60), new=st.text(alphabet="ab\n", max_size=60))
def test_the_changed_lines_put_back_in_place_give_the_new_text(old: str, new: str) -> None:
    change = changed_lines(old, new)
    assert change.before is not None
    if old == new:
        assert change == changed_lines("", "")
        return
    head = "".join(ended_lines(old)[: change.start_line - 1])  # the lines before the span
    assert old.startswith(head + change.before)
    assert head + change.after + old[len(head) + len(change.before) :] == new
    assert change.before.count("\n") <= old.count("\n")


# a real folder, under asyncio and trio -----------------------------------------------------------


class Folder:
    """Leaves over a real workspace folder, each call on a new event loop of `backend`."""

    def __init__(self, root: str, backend: Literal["asyncio", "trio"], answer: Answer) -> None:
        self.workspace = Workspace(root)
        self.catalog = catalog_of(self.workspace)
        self.backend = backend
        self.asked: list[str] = []
        self._answer = answer

    def _approve(self, request: ApprovalRequest) -> ApprovalReply:
        self.asked.append(request.permission)
        return self._answer(request)

    def call(self, name: str, **arguments: Any) -> ToolExecutionResult:
        """Run one call of `name` through the pipeline on a real file system."""
        call = ToolCall(f"call-{len(self.asked)}", name, arguments, CancelSignal())
        return run_real(self.catalog, call, self.backend, self._approve)


def only_edits(request: ApprovalRequest) -> ApprovalReply:
    """Allow `edit` once, reject anything else."""
    return "allowed-once" if request.permission == "edit" else "rejected"


@pytest.fixture
def folders(tmp_path: Path) -> tuple[str, str]:
    """A workspace with notes and links out, and a folder outside it with a secret."""
    base = os.path.realpath(tmp_path)
    root, outside = os.path.join(base, "ws"), os.path.join(base, "outside")
    os.makedirs(root)
    os.makedirs(outside)
    Path(outside, "secret.txt").write_text("secret\n")
    Path(root, "notes.txt").write_text("alpha\nbeta\n")
    os.symlink(os.path.join(outside, "secret.txt"), os.path.join(root, "link.txt"))
    os.symlink(outside, os.path.join(root, "vault"))
    return root, outside


BACKENDS = pytest.mark.parametrize("backend", ["asyncio", "trio"])


@BACKENDS
def test_a_real_write_read_edit(
    folders: tuple[str, str], backend: Literal["asyncio", "trio"]
) -> None:
    root, _ = folders
    folder = Folder(root, backend, only_edits)
    assert text_of(folder.call("write", path="src/new.py", content="x = 1\n")) == (
        "Created src/new.py (1 line)"
    )
    succeeded(folder.call("edit", path="src/new.py", old="1", new="2"))
    assert Path(root, "src/new.py").read_text() == "x = 2\n"
    assert text_of(folder.call("read", path="notes.txt")) == "     1\talpha\n     2\tbeta"
    succeeded(folder.call("edit", path="notes.txt", old="beta", new="gamma"))
    assert Path(root, "notes.txt").read_text() == "alpha\ngamma\n"
    assert folder.asked == ["edit", "edit", "edit"]


@BACKENDS
def test_a_real_edit_refuses_a_file_changed_after_the_read(
    folders: tuple[str, str], backend: Literal["asyncio", "trio"]
) -> None:
    root, _ = folders
    folder = Folder(root, backend, only_edits)
    succeeded(folder.call("read", path="notes.txt"))
    Path(root, "notes.txt").write_text("alpha\nbeta\nand more\n")
    message = failed(folder.call("edit", path="notes.txt", old="beta", new="gamma"))
    assert message.endswith("it changed on disk since it was last read; read it again first")
    assert Path(root, "notes.txt").read_text() == "alpha\nbeta\nand more\n"
    assert folder.asked == []


@BACKENDS
@pytest.mark.parametrize("path", ["link.txt", "vault/secret.txt", "../outside/secret.txt"])
@pytest.mark.parametrize("tool", CALLS)
def test_a_real_link_out_needs_an_approval(
    folders: tuple[str, str], backend: Literal["asyncio", "trio"], path: str, tool: str
) -> None:
    root, outside = folders
    folder = Folder(root, backend, only_edits)
    result = folder.call(tool, path=path, **CALLS[tool])
    assert failed(result, ErrorCode.DENIED).startswith(
        "Denied: permission 'external_directory' declined: the user rejected "
    )
    assert Path(outside, "secret.txt").read_text() == "secret\n"
    assert folder.asked == ["external_directory"]
    failed(folder.call("write", path="vault/new.txt", content="x"), ErrorCode.DENIED)
    assert os.listdir(outside) == ["secret.txt"]


@BACKENDS
def test_a_real_link_out_approved_writes_the_target_and_keeps_the_link(
    folders: tuple[str, str], backend: Literal["asyncio", "trio"]
) -> None:
    root, outside = folders
    folder = Folder(root, backend, lambda request: "allowed-once")
    succeeded(folder.call("write", path="link.txt", content="approved\n"))
    assert Path(outside, "secret.txt").read_text() == "approved\n"
    assert os.path.islink(os.path.join(root, "link.txt"))
    assert folder.asked == ["external_directory", "edit"]
