"""A running command's output as it comes: every byte saved, a bounded head and tail for the model,
its newest lines reported as live progress.

The output is the reads the process runner hands over, in the order it read them (bash has its
stderr on the stdout pipe: one stream, in the order written): that, byte for byte, is what gets
saved. Nothing touches the
spill store while the output is within the limits; the first read past them opens a spill,
writes what came before and goes on writing every read as it comes, up to `cap` bytes (past the
cap bytes are counted, not saved, and the model is told exactly how many). In memory there is
only the first `limits.bytes` bytes, the last `limits.bytes` bytes (up to twice that between
trims) and a few recent lines: a flood of any size is bounded.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, final

from toolfx.core.plaintext import count_bytes, count_lines, head, tail
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
    needed saving, the text is the whole output)."""

    text: str
    total_bytes: int
    total_lines: int
    saved: SavedOutput | None


@final
class CommandOutput:
    """Takes a command's reads (an `OutputSink`); `finish` says what the model sees."""

    __slots__ = (
        "_breaks",
        "_cap",
        "_ctx",
        "_failure",
        "_head",
        "_last",
        "_limits",
        "_partial",
        "_recent",
        "_saved",
        "_saved_breaks",
        "_saved_last",
        "_spill",
        "_tail",
        "_total",
    )

    def __init__(self, ctx: ToolRunContext, limits: OutputLimits, cap: int) -> None:
        self._ctx, self._limits, self._cap = ctx, limits, cap
        self._total = self._breaks = self._saved = self._saved_breaks = 0
        self._last = self._saved_last = b""
        self._head, self._tail, self._partial = bytearray(), bytearray(), bytearray()
        self._recent: deque[str] = deque(maxlen=RECENT_LINES)
        self._spill: SpillWriter | None = None
        self._failure: str | None = None

    async def take(self, stream: OutputStream, data: bytes) -> None:
        """One read of the command's output: saved, bounded, and its newest lines reported."""
        if not data:
            return
        if self._spill is None and self._failure is None and self._over(data):
            await self._open(bytes(self._head))
        self._total += len(data)
        self._breaks += data.count(b"\n")
        self._last = data[-1:]
        self._head += data[: max(self._limits.bytes - len(self._head), 0)]
        self._tail += data[-self._limits.bytes :]
        if len(self._tail) > 2 * self._limits.bytes:
            del self._tail[: -self._limits.bytes]
        await self._save(data)
        if self._newest_lines(data):
            self._ctx.report_progress(self._breaks, None, "\n".join(self._recent))

    async def finish(self) -> ShownOutput | str:
        """What the model sees, or why the output, over the limits, could not be saved."""
        lines = self.size[0]
        if self._spill is None and self._failure is None:
            whole = _decoded(self._head)
            if (
                count_lines(whole) <= self._limits.lines
                and count_bytes(whole) <= self._limits.bytes
            ):
                return ShownOutput(whole, self._total, lines, None)
            await self._open(bytes(self._head))  # decoded, it grew past the limits: save it
        spill = self._spill
        if spill is None:
            return self._failure or "the output could not be saved"
        await self.close()
        saved_lines = self._saved_breaks + (1 if self._saved_last not in (b"", b"\n") else 0)
        saved = SavedOutput(spill.location, self._saved, saved_lines)
        return ShownOutput(self._cut(saved, lines), self._total, lines, saved)

    @property
    def size(self) -> tuple[int, int]:
        """The output so far: its lines and bytes."""
        return self._breaks + (1 if self._last not in (b"", b"\n") else 0), self._total

    async def close(self) -> None:
        """Close the spill, if one is open (what was written stays)."""
        if self._spill is not None:
            await self._spill.close()

    def _over(self, data: bytes) -> bool:
        """Whether the output with `data` is over the limits (then it needs saving)."""
        total = self._total + len(data)
        last = data[-1:]
        lines = self._breaks + data.count(b"\n") + (1 if last != b"\n" else 0)
        return total > self._limits.bytes or lines > self._limits.lines

    async def _open(self, before: bytes) -> None:
        """Open the spill and save `before`, what came before it was needed."""
        try:
            self._spill = await self._ctx.runtime.spills.open(self._ctx.call_id, "bash")
        except SpillError as error:
            self._failure = error.reason
            return
        await self._save(before)

    async def _save(self, data: bytes) -> None:
        """Write what of `data` fits under the cap; a failed write ends the saving."""
        piece = data[: max(self._cap - self._saved, 0)]
        if self._spill is None or not piece:
            return
        try:
            await self._spill.write(piece)
        except SpillError as error:
            self._spill, self._failure = None, error.reason
            return
        self._saved += len(piece)
        self._saved_breaks += piece.count(b"\n")
        self._saved_last = piece[-1:]

    def _newest_lines(self, data: bytes) -> bool:
        """Note the newest complete lines `data` ends; whether it ended any."""
        parts = data.rsplit(b"\n", RECENT_LINES)
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

    def _cut(self, saved: SavedOutput, lines: int) -> str:
        """The head, a note saying where the whole is and how much of it, and the tail."""
        limits = self._limits

        def note(first: int, last: int) -> str:
            return (
                f"[output: {lines:,} lines, {self._total:,} bytes; showing the first "
                f"{first:,} and the last {last:,} lines; {self._kept(saved)}: read it with "
                "`read` (offset and limit) or search it with `grep`]"
            )

        widest = note(lines, lines)
        room_lines = limits.lines - widest.count("\n") - 1
        room_bytes = limits.bytes - count_bytes(widest) - 2
        if room_lines < 0 or room_bytes < 0:
            return head(note(0, 0), limits.lines, limits.bytes)
        first = head(_decoded(self._head), room_lines // 2, room_bytes // 2)
        last = tail(
            _decoded(self._tail), room_lines - room_lines // 2, room_bytes - room_bytes // 2
        )
        joint = "" if not first or first.endswith("\n") else "\n"
        return f"{first}{joint}{note(count_lines(first), count_lines(last))}\n{last}"

    def _kept(self, saved: SavedOutput) -> str:
        """Where the output was saved, and how much of it."""
        where = saved.location.path
        if saved.bytes == self._total:
            return f"all of it saved to {where}"
        return (
            f"its first {saved.bytes:,} bytes ({saved.lines:,} lines) saved to {where}, the "
            f"{self._total - saved.bytes:,} bytes after them not saved (the cap is "
            f"{self._cap:,} bytes)"
        )


def _decoded(data: bytearray) -> str:
    return data.decode("utf-8", "replace")


def _line(data: bytes) -> str:
    """A line as a progress message shows it: its first `LINE_CHARS` characters, no CR."""
    return _decoded(bytearray(data[:_LINE_BYTES]))[:LINE_CHARS].rstrip("\r")
