"""Core's bounded line diffs: real line numbers, hunks that apply, bounded work."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from tests.diff_support import apply_diff
from toolfx.core.plaintext import (
    MAX_DIFF_LINES,
    Edit,
    ended_lines,
    line_edits,
    unified_diff,
    unified_text_diff,
)


def test_hunk_headers_carry_the_real_line_numbers() -> None:
    old = "".join(f"line {n}\n" for n in range(1, 31))
    new = old.replace("line 15\n", "fifteen\nand a half\n")
    diff = unified_text_diff("f.txt", old, new)
    assert diff.splitlines()[2] == "@@ -12,7 +12,8 @@"  # as `git diff` writes it
    assert apply_diff(old, diff) == new


def test_empty_ranges_and_whole_file_changes_number_like_git() -> None:
    assert unified_text_diff("f", "", "new\n").splitlines()[2] == "@@ -0,0 +1 @@"
    assert unified_text_diff("f", "a\nb\n", "").splitlines()[2] == "@@ -1,2 +0,0 @@"
    assert unified_text_diff("f", "a\nb\nc\n", "a\nb\n").splitlines()[2] == "@@ -1,3 +1,2 @@"
    assert unified_text_diff("f", "same\n", "same\n") == ""


def test_far_apart_changes_make_separate_hunks() -> None:
    old = "".join(f"{n}\n" for n in range(40))
    new = old.replace("\n5\n", "\nfive\n").replace("30\n", "thirty\n")
    diff = unified_text_diff("f", old, new)
    headers = [line for line in diff.splitlines() if line.startswith("@@")]
    assert headers == ["@@ -3,7 +3,7 @@", "@@ -28,7 +28,7 @@"]
    assert apply_diff(old, diff) == new


def test_a_middle_too_long_to_diff_is_one_replaced_block_with_its_lines() -> None:
    old = "".join(f"old {n}\n" for n in range(MAX_DIFF_LINES + 5))
    new = "".join(f"new {n}\n" for n in range(MAX_DIFF_LINES + 5))
    assert line_edits(old.splitlines(), new.splitlines()) == [
        Edit("replace", 0, MAX_DIFF_LINES + 5, 0, MAX_DIFF_LINES + 5)
    ]
    assert apply_diff(old, unified_text_diff("f", old, new)) == new


def test_too_many_edits_in_a_short_middle_give_up_to_one_block() -> None:
    old = "".join(f"{n}\nsame\n" for n in range(300))
    new = "".join(f"{n + 1000}\nsame\n" for n in range(300))
    edits = line_edits(old.splitlines(), new.splitlines())
    assert [edit.tag for edit in edits] == ["replace", "equal"]  # the last line is the same
    assert apply_diff(old, unified_text_diff("f", old, new)) == new


texts = st.text(alphabet="ab\n", max_size=80)


@given(old=texts, new=texts)
def test_applying_the_diff_to_the_old_text_gives_the_new_text(old: str, new: str) -> None:
    assert apply_diff(old, unified_text_diff("f", old, new)) == new


@given(
    old=st.lists(st.sampled_from("abcd"), max_size=40),
    new=st.lists(st.sampled_from("abcd"), max_size=40),
)
def test_the_edits_cover_both_sides_in_order_and_equal_runs_are_equal(
    old: list[str], new: list[str]
) -> None:
    edits = line_edits(old, new)
    assert [(e.old_start, e.new_start) for e in edits[:1]] in ([], [(0, 0)])
    for left, right in itertools.pairwise(edits):
        assert (left.old_end, left.new_end) == (right.old_start, right.new_start)
    assert [(e.old_end, e.new_end) for e in edits[-1:]] in ([], [(len(old), len(new))])
    for edit in edits:
        if edit.tag == "equal":
            assert old[edit.old_start : edit.old_end] == new[edit.new_start : edit.new_end]


def test_hunks_are_numbered_from_the_start_line_or_write_a_question_mark_without_one() -> None:
    old, new = ["a\n", "b\n", "c\n"], ["a\n", "B\n", "c\n", "d\n"]
    assert list(unified_diff(old, new, "a", "b", start_line=40))[2] == ("@@ -40,3 +40,4 @@\n")
    assert list(unified_diff([], ["x\n"], "a", "b", start_line=7))[2] == "@@ -6,0 +7 @@\n"
    assert list(unified_diff(old, new, "a", "b", start_line=None))[2] == "@@ -?,3 +?,4 @@\n"


def test_lines_are_split_at_newlines_only_as_git_splits_them() -> None:
    assert ended_lines("a\rb\x0cc\u2028d\ne") == ["a\rb\x0cc\u2028d\n", "e"]
    assert ended_lines("a\n\n") == ["a\n", "\n"]
    assert ended_lines("") == []
    assert unified_text_diff("f", "a\rb\n", "a\rB\n").splitlines(keepends=False)[2] == "@@ -1 +1 @@"
