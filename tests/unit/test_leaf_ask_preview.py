"""The file leaves' asks carry a preview of the change for the person answering: core's unified
diff of the whole file (real line numbers, as git writes them), bounded, saying when it is cut."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.leaves_support import ROOT, LeafSession
from toolfx.core.plaintext import head, unified_text_diff
from toolfx.core.tools import ToolExecutionSuccess
from toolfx.leaves.workspace import WorkspaceLimits

BEFORE = "".join(f"line {n}\n" for n in range(1, 41))


def test_an_edit_in_the_middle_of_a_file_previews_it_with_the_file_s_line_numbers() -> None:
    session = LeafSession({f"{ROOT}/f.txt": BEFORE}, replies=["allowed-once"])
    assert isinstance(session.call("read", path="f.txt"), ToolExecutionSuccess)
    edited = session.call("edit", path="f.txt", old="line 20\n", new="line twenty\nline 20b\n")
    assert isinstance(edited, ToolExecutionSuccess)
    [asked] = session.asked
    after = BEFORE.replace("line 20\n", "line twenty\nline 20b\n")
    assert asked.preview == unified_text_diff("f.txt", BEFORE, after)
    assert asked.preview is not None
    assert "@@ -17,7 +17,8 @@\n" in asked.preview


def test_a_new_file_is_previewed_whole_and_a_rejected_write_writes_nothing() -> None:
    session = LeafSession(replies=["rejected"])
    session.call("write", path="new.txt", content="a\nb\n")
    [asked] = session.asked
    assert asked.preview == "--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n"
    assert f"{ROOT}/new.txt" not in session.fs.snapshot()


def test_a_long_preview_is_cut_to_the_workspace_limits_saying_so() -> None:
    limits = WorkspaceLimits(max_lines=10)
    session = LeafSession(replies=["allowed-once"], limits=limits)
    session.call("write", path="long.txt", content="".join(f"{n}\n" for n in range(100)))
    [asked] = session.asked
    assert asked.preview is not None
    shown = asked.preview.splitlines()
    assert len(shown) == 11
    assert shown[-1] == "[diff cut at 10 of 103 lines]"


def test_asks_that_are_not_file_changes_have_no_preview() -> None:
    session = LeafSession(replies=["allowed-once"])
    session.call("read", path="../outside.txt")
    [asked] = session.asked
    assert asked.permission == "external_directory"
    assert asked.preview is None


@given(
    st.text(alphabet="ab\n", max_size=40),
    st.text(alphabet="ab\n", max_size=40),
    st.integers(min_value=1, max_value=8),
)
def test_a_preview_is_the_diff_or_its_head_and_a_note(before: str, after: str, lines: int) -> None:
    limits = WorkspaceLimits(max_lines=lines)
    session = LeafSession({f"{ROOT}/f.txt": before}, replies=["rejected"], limits=limits)
    session.call("read", path="f.txt")
    session.call("write", path="f.txt", content=after)
    [asked] = session.asked
    diff = unified_text_diff("f.txt", before, after)
    kept = head(diff, lines, limits.max_bytes)
    if kept == diff:
        assert asked.preview == diff
    else:
        assert asked.preview == f"{kept}[diff cut at {lines} of {diff.count(chr(10))} lines]\n"
