"""One-line summaries of calls: what each card kind is summed up as, what counts as failed, and a
line that stays one visible, bounded line whatever a tool put in its card."""

from __future__ import annotations

import io
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console, RenderableType

from toolfx.core.tools import (
    CodeCallCard,
    CodeResultCard,
    DiffCallCard,
    DiffResultCard,
    FileDiff,
    GenericCallCard,
    GenericResultCard,
    ReadFileLine,
    ReadResultCard,
    SearchMatch,
    SearchResultCard,
    TerminalCallCard,
    TerminalResultCard,
    ToolCallView,
    ToolResultView,
    WebFetchResultCard,
    WebSearchResultCard,
    WebSource,
)
from toolfx.interpreters.cli._summary import (
    MAX_PART_CHARS,
    call_subject,
    failure,
    pending_line,
    result_facts,
    settled_line,
)


def shown(text: RenderableType, width: int = 100) -> str:
    """What a plain console `width` columns wide prints for `text`."""
    out = io.StringIO()
    Console(file=out, width=width, color_system=None, highlight=False).print(text)
    return out.getvalue()


def read(offset: int, count: int, total: int, content: str | None = None) -> ReadResultCard:
    lines = tuple(ReadFileLine(n, f"line {n}") for n in range(offset, offset + count))
    return ReadResultCard("a.py", offset, lines, total, content=content)


def matches(*places: tuple[str, int]) -> tuple[SearchMatch, ...]:
    return tuple(SearchMatch(path, line, "foo") for path, line in places)


HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""What `visible` escapes (with newlines): what no line may hold raw..."""
JOINERS = "\u200c\u200d"
"""... but the zero-width joiners, which emoji and many scripts need."""

OLD = "".join(f"{n}\n" for n in range(1, 21))

FACTS: list[tuple[ToolResultView, str]] = [
    (read(1, 18, 18), "18 lines"),
    (read(1, 1, 1), "1 line"),
    (read(1, 910, 2400), "lines 1–910 of 2400"),
    (read(40, 5, 50), "lines 40–44 of 50"),
    (read(5, 0, 3), "nothing at line 5 of 3"),
    (read(1, 0, 0, content="binary file: 3 bytes"), "binary file: 3 bytes"),
    (TerminalResultCard("pytest", "ok", 0, duration=2.14), "exit 0 · 2.1 s"),
    (TerminalResultCard("pytest", "", 1, duration=42.4), "exit 1 · 42 s"),
    (TerminalResultCard("make", "", 0, duration=185.9), "exit 0 · 3 min 5 s"),
    (TerminalResultCard("sleep 9", "", None, "SIGKILL", 120.0, True), "timed out · 2 min 0 s"),
    (TerminalResultCard("yes", "", None, "SIGTERM"), "killed by SIGTERM"),
    (TerminalResultCard("x", "", None), "no exit status"),
    (TerminalResultCard("x", "", 0, duration=float("nan")), "exit 0"),
    (TerminalResultCard("x", "", 0, duration=-1.0), "exit 0"),
    (DiffResultCard((FileDiff("a.py", OLD, OLD.replace("10\n", "ten\nTEN\nX\n")),)), "+3 −1"),
    (DiffResultCard((FileDiff("new.py", None, "".join(f"{n}\n" for n in range(12))),)), "12 lines"),
    (DiffResultCard((FileDiff("a.py", "same\n", "same\n"),)), "no change"),
    (
        DiffResultCard((FileDiff("a", "x\n", "y\n"), FileDiff("b", None, "z\n"))),
        "+2 −1 in 2 files",
    ),
    (
        DiffResultCard((FileDiff("a", "+++ x\n--- y\n", "--- y\n+++ x\n"),)),  # header look-alikes
        "+1 −1",
    ),
    (
        SearchResultCard(
            "matches", False, 12, matches=matches(*[(f"f{n % 3}", n) for n in range(12)])
        ),
        "12 matches in 3 files",
    ),
    (SearchResultCard("matches", False, 1, matches=matches(("a", 1))), "1 match in 1 file"),
    (
        SearchResultCard("matches", True, 120, matches=matches(("a", 1), ("b", 2))),
        "120 matches (first 2 in 2 files)",
    ),
    (SearchResultCard("paths", False, 40, paths=("a",) * 40), "40 paths"),
    (SearchResultCard("paths", True, 240, paths=("a",) * 100), "240 paths (100 shown)"),
    (CodeResultCard(3, 1), "3 tool calls, 1 failed"),
    (CodeResultCard(1, 0), "1 tool call, 0 failed"),
    (WebSearchResultCard((WebSource("u"), WebSource("v")), True), "2 sources · truncated"),
    (WebFetchResultCard("https://x", 200, False), "HTTP 200"),
    (WebFetchResultCard("https://x", 200, True), "HTTP 200 · truncated"),
    (GenericResultCard(content="\n\n  first\nsecond\n"), "first (2 lines)"),
    (GenericResultCard(title="Created a.txt"), "Created a.txt"),
    (GenericResultCard(title="t", content="  "), "t"),
    (GenericResultCard(), "done"),
]


@pytest.mark.parametrize(("view", "facts"), FACTS, ids=[f for _, f in FACTS])
def test_every_result_card_kind_is_summed_up_in_words(view: ToolResultView, facts: str) -> None:
    assert result_facts(view) == facts


SUBJECTS: list[tuple[str, ToolCallView, str]] = [
    ("bash", TerminalCallCard("pytest -q", "run the tests", "/ws"), "pytest -q"),
    ("read", GenericCallCard("Read src/app.py", "read"), "src/app.py"),
    ("grep", GenericCallCard("Grep foo in src"), "foo in src"),
    ("edit", DiffCallCard("Edit src/a.py", (FileDiff("src/a.py", "a", "b", None),)), "src/a.py"),
    ("write", DiffCallCard("Write new.py", (FileDiff("new.py", None, "x"),)), "new.py"),
    (
        "run_code",
        CodeCallCard("Run a program", "a = 1\nb = 2\nc = 3", "python"),
        "3 lines of python",
    ),
    ("run_code", CodeCallCard("Run", "x\n"), "1 line of code"),
    ("mcp_search", GenericCallCard("mcp_search", raw_input={"q": "é"}), '{"q":"é"}'),
    ("mcp_search", GenericCallCard("mcp_search"), ""),
    ("fetch", GenericCallCard("Download a page"), "Download a page"),
]


@pytest.mark.parametrize(("tool", "view", "subject"), SUBJECTS, ids=[s for _, _, s in SUBJECTS])
def test_every_call_card_kind_gives_its_subject(
    tool: str, view: ToolCallView, subject: str
) -> None:
    assert call_subject(tool, view) == subject


def test_a_call_fails_by_its_error_or_by_how_its_command_ended() -> None:
    ok = TerminalResultCard("x", "", 0)
    assert failure("DENIED", ok) == "DENIED"
    assert failure(None, ok) is None
    assert failure(None, TerminalResultCard("x", "", 0, timed_out=True)) == "timed out"
    assert failure(None, TerminalResultCard("x", "", None, "SIGKILL")) == "killed"
    assert failure(None, TerminalResultCard("x", "", 2)) == "non-zero exit"
    assert failure(None, TerminalResultCard("x", "", None)) is None
    assert failure(None, GenericResultCard(content="exit 1")) is None


def test_the_lines_read_as_the_issue_shows_them() -> None:
    assert shown(pending_line("read", "c1", "src/app.py")) == "● read · c1  src/app.py\n"
    assert shown(settled_line("read", "src/app.py", "18 lines")) == "✓ read src/app.py · 18 lines\n"
    assert shown(settled_line("glob", "", "2 paths", indent=4)) == "    ✓ glob · 2 paths\n"
    assert shown(settled_line("x", "y", "z", replayed=True)) == "↻ replayed x y · z\n"


def test_hostile_text_gives_one_visible_line_cut_to_its_bound() -> None:
    hostile = "\x1b[2J" + "line\n" * 50_000 + "\u202e" + "x" * 1_000_000
    subject = call_subject("bash", TerminalCallCard(hostile))
    facts = result_facts(GenericResultCard(content=hostile))
    assert subject.startswith(r"\x1b[2Jline\x0aline\x0a")
    assert subject.endswith("…")
    assert len(subject) <= 4 * MAX_PART_CHARS
    assert facts == r"\x1b[2Jline (50001 lines)"
    out = shown(settled_line(hostile, subject, facts), width=80)
    assert out.count("\n") == 1
    assert out.endswith("…\n")
    assert "\x1b" not in out


def result_cards() -> st.SearchStrategy[ToolResultView]:
    """Any completed card, of every kind, holding any text."""
    text = st.text(max_size=60)
    optional = st.none() | text
    diff = st.builds(FileDiff, text, optional, text, st.none() | st.integers(1, 10))
    return st.one_of(
        st.builds(GenericResultCard, optional, optional),
        st.builds(
            TerminalResultCard,
            optional,
            optional,
            st.none() | st.integers(-300, 300),
            optional,
            st.none() | st.floats(),
            st.booleans(),
        ),
        st.builds(DiffResultCard, st.lists(diff, max_size=3).map(tuple), optional),
        st.builds(
            SearchResultCard,
            st.sampled_from(["matches", "paths"]),
            st.booleans(),
            st.integers(0, 10**9),
            st.lists(text, max_size=3).map(tuple),
            st.lists(st.builds(SearchMatch, text, st.integers(1), text), max_size=3).map(tuple),
        ),
        st.builds(
            ReadResultCard,
            text,
            st.integers(1, 100),
            st.lists(st.builds(ReadFileLine, st.integers(1), text), max_size=3).map(tuple),
            st.integers(0, 1000),
            content=optional,
        ),
        st.builds(
            WebSearchResultCard,
            st.lists(st.builds(WebSource, text, optional), max_size=3).map(tuple),
            st.booleans(),
        ),
        st.builds(WebFetchResultCard, text, st.integers(100, 599), st.booleans()),
        st.builds(CodeResultCard, st.integers(0, 99), st.integers(0, 99), optional, optional),
    )


def call_cards() -> st.SearchStrategy[ToolCallView]:
    """Any pending card, of every kind, holding any text."""
    text = st.text(max_size=300)
    optional = st.none() | text
    arguments = st.none() | st.dictionaries(text, text, max_size=3)
    diff = st.builds(FileDiff, text, optional, text, st.none() | st.integers(1, 10))
    return st.one_of(
        st.builds(GenericCallCard, text, raw_input=arguments),
        st.builds(TerminalCallCard, text, optional, optional),
        st.builds(DiffCallCard, text, st.lists(diff, max_size=2).map(tuple)),
        st.builds(CodeCallCard, text, text, optional),
    )


@given(tool=st.text(max_size=30), call=call_cards(), view=result_cards())
def test_any_card_sums_up_as_exactly_one_line_with_nothing_hidden(
    tool: str, call: ToolCallView, view: ToolResultView
) -> None:
    subject = call_subject(tool, call)
    for line in (
        pending_line(tool, "c1", subject),
        settled_line(tool, subject, result_facts(view)),
    ):
        out = shown(line, width=60)
        assert out.count("\n") == 1
        hidden = [c for c in out[:-1] if unicodedata.category(c) in HIDDEN and c not in JOINERS]
        assert not hidden, repr(out)
