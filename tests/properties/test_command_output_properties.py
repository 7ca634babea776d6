"""Properties of a command's output as bash keeps it: for random reads (line breaks of every kind
`read` knows, bytes that are not UTF-8, long lines), random limits, a random cap and a random
store budget, every byte up to the cap and the budget is saved in order, what the model sees is
within the limits, the sizes are exact (lines as `read` numbers them), and progress comes at most
once per read with at most five lines of at most 200 characters each."""

from __future__ import annotations

from typing import TypedDict

from hypothesis import given
from hypothesis import strategies as st

from toolfx.core.json import plural
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.plaintext import (
    LINE_BREAKS,
    LineCount,
    breaks_as_newlines,
    count_bytes,
    head_lines,
    tail_lines,
)
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, ProgressEvent
from toolfx.core.tools import Output, OutputLimits, ToolRunContext, define_tool
from toolfx.interpreters.testing import DeterministicInterpreter, MemorySpills
from toolfx.leaves._shell.output import LINE_CHARS, RECENT_LINES, CommandOutput, ShownOutput

reads = st.lists(
    st.one_of(
        st.binary(max_size=300),
        st.lists(
            st.sampled_from(
                [b"\n", b"ab", b"\xc3\xa9", b"\xff", b"\r", b"\x0c", b"\xe2\x80\xa8", b"x" * 250]
            )
        ).map(b"".join),
    ),
    max_size=12,
)
limits = st.builds(OutputLimits, lines=st.integers(1, 40), bytes=st.integers(1, 600))


class Args(TypedDict):
    n: int


def lines_of(data: bytes) -> int:
    """The lines `read` numbers in `data` (decoded as the model is shown it)."""
    return len(data.decode("utf-8", "replace").splitlines())


def _keep(
    chunks: list[bytes], limit: OutputLimits, cap: int, budget: int = 1 << 30, call_id: str = "c"
) -> tuple[ShownOutput, MemorySpills, list[ProgressEvent]]:
    shown: list[ShownOutput] = []

    async def body(args: Args, ctx: ToolRunContext) -> str:
        output = CommandOutput(ctx, limit, cap)
        for chunk in chunks:
            await output.take("stdout", chunk)
        shown.append(await output.finish())
        return ""

    location = Location()
    location.register(
        define_tool(name="t", description="d", parameters=Args, output=Output(str), execute=body)
    )
    spills, events = MemorySpills(budget), list[ProgressEvent]()
    interpreter = DeterministicInterpreter(spills=spills, progress=events.append)
    interpreter.run(execute(location.catalog(), ToolCall(call_id, "t", {"n": 1}, CancelSignal())))
    return shown[0], spills, events


@given(
    reads, limits, st.integers(1, 2000), st.integers(0, 2000), st.sampled_from(["c", "c\rd\u2028"])
)
def test_every_byte_up_to_the_cap_and_budget_is_saved_and_the_model_sees_the_rest_bounded(
    chunks: list[bytes], limit: OutputLimits, cap: int, budget: int, call_id: str
) -> None:
    whole = b"".join(chunks)
    shown, spills, _ = _keep(chunks, limit, cap, budget, call_id)
    assert shown.total_bytes == len(whole)
    assert shown.total_lines == lines_of(whole)
    assert len(shown.text.splitlines()) <= limit.lines
    assert count_bytes(shown.text) <= limit.bytes
    if shown.saved is None and budget > 0:  # within the limits: the whole, nothing saved
        assert shown.text == whole.decode("utf-8", "replace")
        assert spills.saved == {}
    elif shown.saved is None:  # over the limits, the budget spent: nothing could be saved
        assert spills.saved == {}
    else:
        kept = min(cap, budget, len(whole))
        assert spills.saved == {shown.saved.location.path: whole[:kept]}
        assert (shown.saved.bytes, shown.saved.lines) == (kept, lines_of(whole[:kept]))
        cut_note = shown.text[:1] == "[" and "]" not in shown.text
        assert shown.saved.location.path in shown.text or cut_note  # or the note alone is over
        if kept < len(whole) and "not saved" in shown.text:
            assert f"the {plural(len(whole) - kept, 'byte')} after them not saved" in shown.text


@given(reads)
def test_progress_comes_at_most_once_a_read_with_the_newest_lines_cut(chunks: list[bytes]) -> None:
    whole = b"".join(chunks)
    _, _, events = _keep(chunks, OutputLimits(), 1 << 30)
    assert len(events) <= len(chunks)
    assert [event.progress for event in events] == sorted({event.progress for event in events})
    text = whole.decode("utf-8", "replace")
    ended = text.splitlines(keepends=True)
    complete = [line.splitlines()[0] for line in ended if line.splitlines()[0] != line]
    if events:  # a last "\r" is held back: it may be the start of a "\r\n"
        assert events[-1].progress == len(complete) - (1 if whole.endswith(b"\r") else 0)
    newest = [line[:LINE_CHARS] for line in complete]
    for event in events:
        assert event.message is not None
        lines = event.message.split("\n")
        assert len(lines) <= RECENT_LINES
        assert all(len(line) <= LINE_CHARS for line in lines)
    if events and not whole.endswith(b"\r"):  # a last "\r" may yet be a "\r\n"
        assert events[-1].message == "\n".join(newest[-RECENT_LINES:])


texts = st.text(st.sampled_from("ab\n\r\x0cé€\u2028"), max_size=60)


def count(text: str) -> int:
    return len(text.splitlines())


@given(texts, st.integers(0, 8), st.integers(0, 40))
def test_a_tail_is_the_longest_suffix_of_whole_lines_within_the_limits(
    text: str, lines: int, size: int
) -> None:
    cut = tail_lines(text, lines, size)
    assert text.endswith(cut)
    assert count(cut) <= lines
    assert count_bytes(cut) <= size
    if count(text) <= lines and count_bytes(text) <= size:
        assert cut == text
    elif count(cut) > 1 or (cut and text[: len(text) - len(cut)].splitlines(keepends=True)):
        starts = text[: len(text) - len(cut)]
        split = starts.endswith("\r") and cut.startswith("\n")  # half a "\r\n"
        whole = starts == "" or ((starts + "x").splitlines()[-1] == "x" and not split)
        assert whole or count(cut) <= 1, (text, cut)  # whole lines, unless one line is cut
        longer = tail_lines(text, count(cut) + 1, 10**6)
        assert longer == cut or count(longer) > lines or count_bytes(longer) > size


@given(texts, st.integers(0, 8), st.integers(0, 40))
def test_a_head_is_the_longest_prefix_of_whole_lines_within_the_limits(
    text: str, lines: int, size: int
) -> None:
    cut = head_lines(text, lines, size)
    assert text.startswith(cut)
    assert count(cut) <= lines
    assert count_bytes(cut) <= size
    if count(text) <= lines and count_bytes(text) <= size:
        assert cut == text
    elif count(cut) > 1:  # whole lines (never half a "\r\n"), and one more would not fit
        assert (cut + "x").splitlines()[-1] == "x"
        assert not (cut.endswith("\r") and text[len(cut) : len(cut) + 1] == "\n")
        longer = head_lines(text, count(cut) + 1, 10**6)
        assert longer == cut or count(longer) > lines or count_bytes(longer) > size


@given(st.binary(max_size=200), st.data())
def test_lines_counted_in_any_pieces_are_the_lines_read_numbers(
    data: bytes, draw: st.DataObject
) -> None:
    cuts = sorted(draw.draw(st.lists(st.integers(0, len(data)), max_size=8)))
    pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    counter = LineCount()
    counted = b"".join(counter.add(piece) for piece in pieces)
    assert counter.lines == lines_of(data)
    assert counter.ended == counted.count(b"\n")
    assert counted.count(b"\n") == breaks_as_newlines(data).count(b"\n") - (
        1 if data.endswith(b"\r") else 0
    )


def test_the_line_breaks_are_exactly_those_str_splitlines_knows() -> None:
    known = {chr(code) for code in range(0x110000) if chr(code).splitlines() == [""]}
    assert set(LINE_BREAKS) == known
    for char in known:
        assert breaks_as_newlines(f"a{char}b".encode()) == b"a\nb"
    assert breaks_as_newlines(b"a\r\nb") == b"a\nb"
