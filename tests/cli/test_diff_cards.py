"""The CLI's diff cards: core's bounded diff as `difflib` would write it for ordinary edits,
hunks that apply back, and a card that stays small whatever texts it holds."""

from __future__ import annotations

import io
import re

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console, RenderableType

from tests.diff_support import apply_diff
from toolfx.core.tools import DiffCallCard, DiffResultCard, FileDiff
from toolfx.interpreters.cli._cards import (
    HEAD_LINES,
    MAX_HIGHLIGHTED_CHARS,
    TAIL_LINES,
    call_body,
    diff_lines,
    result_body,
)


def shown(renderable: RenderableType, width: int = 200) -> str:
    """What a plain terminal `width` columns wide shows for `renderable`."""
    out = io.StringIO()
    Console(file=out, width=width, color_system=None, highlight=False).print(renderable)
    return out.getvalue()


def test_an_ordinary_edit_is_shown_as_difflib_writes_it() -> None:
    old = "".join(f"line {n}\n" for n in range(1, 31))
    new = old.replace("line 15\n", "fifteen\nand a half\n")
    assert list(diff_lines(FileDiff("f.txt", old, new))) == [
        "--- a/f.txt",
        "+++ b/f.txt",
        "@@ -12,7 +12,8 @@",
        " line 12",
        " line 13",
        " line 14",
        "-line 15",
        "+fifteen",
        "+and a half",
        " line 16",
        " line 17",
        " line 18",
    ]
    assert list(diff_lines(FileDiff("n.txt", None, "a\nb")))[:3] == [
        "--- /dev/null",
        "+++ b/n.txt",
        "@@ -0,0 +1,2 @@",
    ]
    assert "same.txt: no change" in shown(
        call_body(DiffCallCard("t", (FileDiff("same.txt", "x", "x"),)))
    )


texts = st.text(alphabet="ab\n", max_size=80)


@given(old=st.none() | texts, new=texts, start=st.integers(1, 1000))
def test_the_cli_diff_of_any_texts_applies_back_to_the_new_text(
    old: str | None, new: str, start: int
) -> None:
    lines = list(diff_lines(FileDiff("f", old, new, start)))
    text = "".join(f"{line}\n" for line in lines)
    if start == 1:  # hunks numbered from the texts' own first line apply to them
        assert apply_diff(old or "", text) == new
    # numbered from `start`: they apply to the texts placed after `start - 1` other lines
    above = "".join(f"{n}\n" for n in range(start - 1))
    assert apply_diff(above + (old or ""), text) == above + new


def ended(text: str | None) -> str | None:
    """A text whose last line ends in a newline."""
    return text if not text or text.endswith("\n") else f"{text}\n"


@given(old=st.none() | texts, new=texts)
def test_snippets_whose_place_is_unknown_are_diffed_as_lines_without_numbers(
    old: str | None, new: str
) -> None:
    numbered = diff_lines(FileDiff("f", ended(old), ended(new) or "", 1))
    unnumbered = [
        re.sub(r"([-+])\d+", r"\1?", line) if line.startswith("@@") else line for line in numbered
    ]
    assert list(diff_lines(FileDiff("f", old, new, None))) == unnumbered


def test_a_diff_card_of_huge_texts_stays_small() -> None:
    long_line = "x" * 260_000
    many = "".join(f"{n}\n" for n in range(50_000))
    card = DiffResultCard(
        diffs=(FileDiff("a.txt", long_line, long_line + "!"), FileDiff("b.txt", many, "")),
        title="Wrote",
    )
    out = shown(result_body(card), width=1000)  # wider than a cut line
    assert len(out) < 2 * (HEAD_LINES + TAIL_LINES + 5) * (MAX_HIGHLIGHTED_CHARS + 30)
    assert f"x… ({1 + 260_000 - MAX_HIGHLIGHTED_CHARS} more characters)" in out  # +1: the mark
    assert f"⋮ {50_000 + 3 - HEAD_LINES - TAIL_LINES} more lines" in out
    assert "-49999" in out  # the tail is kept
