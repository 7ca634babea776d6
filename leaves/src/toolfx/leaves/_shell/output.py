"""A running command's output as it comes: every byte saved, a bounded head and tail for the model,
its newest lines reported as live progress.

The output is the reads the process runner hands over, in the order it read them (bash has its
stderr on the stdout pipe: one stream, in the order written): that, byte for byte, is what gets
saved. Nothing touches the spill store while the output is within the limits; the first read past
them opens a spill, writes what came before and goes on writing every read as it comes, up to
`cap` bytes and what the store's budget allows (past either, bytes are counted, not saved, and
the model is told exactly how many and why). A spill that fails (disk full) still leaves the
model the head, the tail and how many bytes between them are lost. Lines are counted as `read`
numbers them (`toolfx.core.plaintext.LineCount`). In memory there is only the first
`limits.bytes` bytes, the last `limits.bytes` bytes (up to twice that between trims) and a few
recent lines: a flood of any size is bounded.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, final

from toolfx.core.json import plural
from toolfx.core.plaintext import LineCount, count_bytes, head_lines, tail_lines
from toolfx.core.runtime import SpillError

if TYPE_CHECKING:
    from toolfx.core.runtime import OutputStream, SpillLocation, SpillWriter
    from toolfx.core.tools import OutputLimits, ToolRunContext

__all__ = ["LINE_CHARS", "RECENT_LINES", "CommandOutput", "SavedOutput", "ShownOutput"]

RECENT_LINES: Final = 5
"""The most output lines one progress message carries (the newest complete ones)."""

LINE_CHARS: Final = 200
"""The most characters of one line a progress message carries."""

_LINE_BYTES: Final = 4 * LINE_CHARS
"""Bytes of a line's start enough for `LINE_CHARS` characters."""


@final
@dataclass(frozen=True, slots=True)
class SavedOutput:
    """Where the output was saved, and how much of it: bytes and lines (all, unless capped)."""

    location: SpillLocation
    bytes: int
    lines: int


@final
@dataclass(frozen=True, slots=True)
class ShownOutput:
    """What the model sees of the output, the whole's size, and what was saved (None: nothing
    needed saving, the text is the whole output; or saving failed, as the text says)."""

    text: str
    total_bytes: int
    total_lines: int
    saved: SavedOutput | None


@final
class CommandOutput:
    """Takes a command's reads (an `OutputSink`); `finish` says what the model sees."""

    __slots__ = (
        "_cap",
        "_count",
        "_ctx",
        "_failure",
        "_head",
        "_limits",
        "_partial",
        "_recent",
        "_saved",
        "_saved_count",
        "_spill",
        "_tail",
        "_total",
        "_unsaved",
    )

    def __init__(self, ctx: ToolRunContext, limits: OutputLimits, cap: int) -> None:
        self._ctx, self._limits, self._cap = ctx, limits, cap
        self._total = self._saved = 0
        self._count, self._saved_count = LineCount(), LineCount()
        self._head, self._tail, self._partial = bytearray(), bytearray(), bytearray()
        self._recent: deque[str] = deque(maxlen=RECENT_LINES)
        self._spill: SpillWriter | None = None
        self._failure: str | None = None  # why the spill could not be made or written
        self._unsaved: str | None = None  # why bytes past the saved ones were not saved

    async def take(self, stream: OutputStream, data: bytes) -> None:
        """One read of the command's output: saved, bounded, and its newest lines reported."""
        if not data:
            return
        counted = self._count.add(data)
        self._total += len(data)
        limits = self._limits
        over = self._total > limits.bytes or self._count.lines > limits.lines
        if over and self._spill is None and self._failure is None:
            await self._open(bytes(self._head))
        self._head += data[: max(limits.bytes - len(self._head), 0)]
        self._tail += data[-limits.bytes :]
        if len(self._tail) > 2 * limits.bytes:
            del self._tail[: -limits.bytes]
        await self._save(data)
        if self._newest_lines(counted):
            self._ctx.report_progress(self._count.ended, None, "\n".join(self._recent))

    async def finish(self) -> ShownOutput:
        """What the model sees: the whole output, or its head and tail with where the whole was
        saved (or why it could not be), and how much of it."""
        lines = self._count.lines
        if self._spill is None and self._failure is None:
            whole = _decoded(self._head)
            if (
                len(whole.splitlines()) <= self._limits.lines
                and count_bytes(whole) <= self._limits.bytes
            ):
                return ShownOutput(whole, self._total, lines, None)
            await self._open(bytes(self._head))  # decoded, it grew past the limits: save it
        spill = self._spill
        await self.close()
        saved = (
            None
            if spill is None
            else SavedOutput(spill.location, self._saved, self._saved_count.lines)
        )
        return ShownOutput(self._cut(saved, lines), self._total, lines, saved)

    async def close(self) -> None:
        """Close the spill, if one is open (what was written stays)."""
        if self._spill is not None:
            await self._spill.close()

    async def _open(self, before: bytes) -> None:
        """Open the spill and save `before`, what came before it was needed."""
        try:
            self._spill = await self._ctx.runtime.spills.open(self._ctx.call_id, "bash")
        except SpillError as error:
            self._failure = error.reason
            return
        await self._save(before)

    async def _save(self, data: bytes) -> None:
        """Write what of `data` fits under the cap and the store's budget; a failed write ends
        the saving."""
        piece = data[: max(self._cap - self._saved, 0)]
        if self._spill is None or not data:
            return
        written = 0
        if piece:
            try:
                written = await self._spill.write(piece)
            except SpillError as error:
                self._spill, self._failure = None, error.reason
                return
        self._saved += written
        self._saved_count.add(piece[:written])
        if written < len(data) and self._unsaved is None:
            self._unsaved = (
                f"the most one command saves is {plural(self._cap, 'byte')}"
                if written == len(piece)
                else "the budget of bytes this session may save is used up"
            )

    def _newest_lines(self, counted: bytes) -> bool:
        """Note the newest complete lines `counted` (breaks as "\\n") ends; whether it ended
        any."""
        parts = counted.rsplit(b"\n", RECENT_LINES)
        *ended, rest = parts
        if not ended:
            self._partial += rest[: max(_LINE_BYTES - len(self._partial), 0)]
            return False
        _, newline, first = ended[0].rpartition(b"\n")
        if not newline:
            first = bytes(self._partial) + first
        self._recent.extend(_line(line) for line in (first, *ended[1:]))
        self._partial = bytearray(rest[:_LINE_BYTES])
        return True

    def _cut(self, saved: SavedOutput | None, lines: int) -> str:
        """The head, a note saying how much there is and where the whole is (or why it is not
        kept), and the tail."""
        limits = self._limits

        def note(first: int, last: int, lost: int) -> str:
            return (
                f"[output: {plural(lines, 'line')}, {plural(self._total, 'byte')}; showing the "
                f"first {plural(first, 'line')} and the last {plural(last, 'line')}; "
                f"{self._kept(saved, lost)}]"
            )

        widest = max(note(lines, lines, self._total), note(0, 0, self._total), key=count_bytes)
        room_lines = limits.lines - len(widest.splitlines())
        room_bytes = limits.bytes - count_bytes(widest) - 2
        if room_lines < 0 or room_bytes < 0:
            return head_lines(note(0, 0, self._total), limits.lines, limits.bytes)
        first = head_lines(_escaped(self._head), room_lines // 2, room_bytes // 2)
        last = tail_lines(
            _escaped(self._tail), room_lines - room_lines // 2, room_bytes - room_bytes // 2
        )
        lost = max(self._total - _raw_size(first) - _raw_size(last), 0)
        told = note(len(first.splitlines()), len(last.splitlines()), lost)
        joint = "" if not first or _ends_line(first) else "\n"
        return f"{_shown(first)}{joint}{told}\n{_shown(last)}"

    def _kept(self, saved: SavedOutput | None, lost: int) -> str:
        """Where the output was saved and how much of it, or why it could not be."""
        if saved is None:
            return (
                f"the {plural(lost, 'byte')} between them are lost: the whole could not be "
                f"saved ({self._failure or 'no spill was made'})"
            )
        where = saved.location.path
        read = "read it with `read` (offset and limit) or search it with `grep`"
        if saved.bytes == self._total:
            return f"all of it saved to {where}: {read}"
        return (
            f"its first {plural(saved.bytes, 'byte')} ({plural(saved.lines, 'line')}) saved to "
            f"{where}, the {plural(self._total - saved.bytes, 'byte')} after them not saved "
            f"({self._unsaved}): {read}"
        )


def _decoded(data: bytearray) -> str:
    return data.decode("utf-8", "replace")


def _escaped(data: bytearray) -> str:
    """The bytes as text, each invalid byte kept as a lone surrogate (see `_shown`)."""
    return data.decode("utf-8", "surrogateescape")


def _raw_size(text: str) -> int:
    """How many bytes of output an `_escaped` text stands for."""
    return len(text.encode("utf-8", "surrogateescape"))


def _shown(text: str) -> str:
    """An `_escaped` text as the model sees it: invalid bytes replaced."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _ends_line(text: str) -> bool:
    """Whether `text` ends with a line break (by `str.splitlines`'s rule)."""
    return (text + "x").splitlines()[-1] == "x"


def _line(data: bytes) -> str:
    """A line as a progress message shows it: its first `LINE_CHARS` characters."""
    return _decoded(bytearray(data[:_LINE_BYTES]))[:LINE_CHARS]
