"""Properties of a command's output as bash keeps it: for random reads (line breaks, bytes that
are not UTF-8, long lines), random limits and a random cap, every byte up to the cap is saved in
order, what the model sees is within the limits, the sizes are exact, and progress comes at most
once per read with at most five lines of at most 200 characters each."""

from __future__ import annotations

from typing import TypedDict

from hypothesis import given
from hypothesis import strategies as st

from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.plaintext import count_bytes, count_lines, tail
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal, ProgressEvent
from toolfx.core.tools import Output, OutputLimits, ToolRunContext, define_tool
from toolfx.interpreters.testing import DeterministicInterpreter, MemorySpills
from toolfx.leaves._shell.output import LINE_CHARS, RECENT_LINES, CommandOutput, ShownOutput

reads = st.lists(
    st.one_of(
        st.binary(max_size=300),
        st.lists(st.sampled_from([b"\n", b"ab", b"\xc3\xa9", b"\xff", b"\r", b"x" * 250])).map(
            b"".join
        ),
    ),
    max_size=12,
)
limits = st.builds(OutputLimits, lines=st.integers(1, 40), bytes=st.integers(1, 600))


class Args(TypedDict):
    n: int


def _keep(
    chunks: list[bytes], limit: OutputLimits, cap: int
) -> tuple[ShownOutput | str, MemorySpills, list[ProgressEvent]]:
    shown: list[ShownOutput | str] = []

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
    spills, events = MemorySpills(), list[ProgressEvent]()
    interpreter = DeterministicInterpreter(spills=spills, progress=events.append)
    interpreter.run(execute(location.catalog(), ToolCall("c", "t", {"n": 1}, CancelSignal())))
    return shown[0], spills, events


@given(reads, limits, st.integers(1, 2000))
def test_every_byte_up_to_the_cap_is_saved_and_the_model_sees_the_rest_bounded(
    chunks: list[bytes], limit: OutputLimits, cap: int
) -> None:
    whole = b"".join(chunks)
    shown, spills, _ = _keep(chunks, limit, cap)
    assert isinstance(shown, ShownOutput)
    assert shown.total_bytes == len(whole)
    assert shown.total_lines == count_lines(whole.decode("latin-1"))
    assert count_lines(shown.text) <= limit.lines
    assert count_bytes(shown.text) <= limit.bytes
    if shown.saved is None:  # within the limits: the whole, nothing saved
        assert shown.text == whole.decode("utf-8", "replace")
        assert spills.saved == {}
    else:
        assert spills.saved == {shown.saved.location.path: whole[:cap]}
        assert (shown.saved.bytes, shown.saved.lines) == (
            min(cap, len(whole)),
            count_lines(whole[:cap].decode("latin-1")),
        )
        assert shown.saved.location.path in shown.text or count_bytes(shown.text) == limit.bytes


@given(reads)
def test_progress_comes_at_most_once_a_read_with_the_newest_lines_cut(chunks: list[bytes]) -> None:
    whole = b"".join(chunks)
    _, _, events = _keep(chunks, OutputLimits(), 1 << 30)
    assert len(events) <= len(chunks)
    assert [event.progress for event in events] == sorted({event.progress for event in events})
    if events:
        assert events[-1].progress == whole.count(b"\n")
    complete = whole.split(b"\n")[:-1]
    newest = [line.decode("utf-8", "replace")[:LINE_CHARS].rstrip("\r") for line in complete]
    for event in events:
        assert event.message is not None
        lines = event.message.split("\n")
        assert len(lines) <= RECENT_LINES
        assert all(len(line) <= LINE_CHARS for line in lines)
    if events:
        assert events[-1].message == "\n".join(newest[-RECENT_LINES:])


@given(st.text(st.sampled_from("ab\né€"), max_size=60), st.integers(0, 8), st.integers(0, 40))
def test_a_tail_is_the_longest_suffix_of_whole_lines_within_the_limits(
    text: str, lines: int, size: int
) -> None:
    cut = tail(text, lines, size)
    assert text.endswith(cut)
    assert count_lines(cut) <= lines
    assert count_bytes(cut) <= size
    if count_lines(text) <= lines and count_bytes(text) <= size:
        assert cut == text
    elif cut and count_lines(cut) > 1:  # whole lines, and one more would not fit
        longer = tail(text, count_lines(cut) + 1, 10**6)
        assert longer == cut or count_lines(longer) > lines or count_bytes(longer) > size
