"""Output bounding in the pipeline, under every interpreter: text over the limits is cut for the
model, the whole kept in the runtime's spill store (the interpreter's own, unless a scenario gives
one), and a spill that fails is an OUTPUT_NOT_KEPT failure.

A `Stage` runs each description on the runtime the interpreter hands it, wrapped so that every
text its spill store keeps is also noted with where the store put it."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypedDict, final

import pytest
from returns.result import Failure, Result

from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.plaintext import count_bytes, count_lines
from toolfx.core.registry import Location
from toolfx.core.runtime import (
    CancelSignal,
    DelegatingRuntime,
    Description,
    Interpreter,
    Runtime,
    SpillError,
    SpillLocation,
    SpillStore,
    SpillWriter,
)
from toolfx.core.tools import (
    ContentBlock,
    ErrorCode,
    ImageBlock,
    Output,
    OutputLimits,
    TextBlock,
    ToolExecutionFailure,
    ToolExecutionResult,
    ToolExecutionSuccess,
    ToolFailure,
    ToolRunContext,
    define_tool,
)
from toolfx.testing._host import Host, InterpreterFactory, ignore_progress, unavailable

__all__ = ["BoundingScenarios", "Stage"]

DEFAULT = OutputLimits()


@final
class NotedSpills(SpillStore):
    """A spill store that keeps each text in `store` and notes it under the path it was given."""

    def __init__(
        self, store: SpillStore, noted: dict[str, str], streamed: dict[str, bytearray]
    ) -> None:
        self.store = store
        self.noted = noted
        self.streamed = streamed

    async def keep(self, call_id: str, tool: str, text: str) -> SpillLocation:
        """The store's `keep`, noted when it succeeds."""
        where = await self.store.keep(call_id, tool, text)
        self.noted[where.path] = text
        return where

    async def open(self, call_id: str, tool: str) -> SpillWriter:
        """The store's `open`, each write that succeeds noted under the spill's path."""
        writer = await self.store.open(call_id, tool)
        self.streamed[writer.location.path] = bytearray()
        return NotedWriter(writer, self.streamed[writer.location.path])


@final
class NotedWriter(SpillWriter):
    """A spill writer whose writes are also appended to `noted`."""

    def __init__(self, writer: SpillWriter, noted: bytearray) -> None:
        self.writer = writer
        self.noted = noted

    @property
    def location(self) -> SpillLocation:
        """The writer's location."""
        return self.writer.location

    async def write(self, data: bytes) -> int:
        """The writer's `write`, what it saved noted."""
        saved = await self.writer.write(data)
        self.noted += data[:saved]
        return saved

    async def close(self) -> None:
        """The writer's `close`."""
        await self.writer.close()


@final
class NotingRuntime(DelegatingRuntime):
    """The interpreter's runtime, its spill store noting what it keeps in `noted` (and what it
    is given as it comes in `streamed`)."""

    def __init__(
        self, inner: Runtime, noted: dict[str, str], streamed: dict[str, bytearray]
    ) -> None:
        super().__init__(inner)
        self.noted = noted
        self.streamed = streamed

    @property
    def spills(self) -> SpillStore:
        """The inner store, noting what it keeps."""
        return NotedSpills(self.inner.spills, self.noted, self.streamed)


class Args(TypedDict):
    text: str


class Stage:
    """The interpreter under test with a Location; runs calls and reads back what was spilled."""

    def __init__(self, factory: InterpreterFactory, spills: SpillStore | None = None) -> None:
        self.reported: list[str] = []
        self.noted: dict[str, str] = {}
        self.streamed: dict[str, bytearray] = {}
        self.location: Location = Location()
        self.interpreter: Interpreter = factory(
            Host(unavailable, self._report, ignore_progress, spills)
        )

    def run(self, description: Description[Any]) -> Any:
        """Run `description` on the interpreter, noting what its spill store keeps."""
        noted, streamed = self.noted, self.streamed

        def program(runtime: Runtime) -> Coroutine[Any, Any, Any]:
            return description.program(NotingRuntime(runtime, noted, streamed))

        return self.interpreter.run(Description(program))

    def _report(self, error: BaseException, where: str) -> None:
        self.reported.append(where)

    def kept(self, path: str) -> str:
        """The whole text spilled at `path`."""
        return self.noted[path]

    def spilled(self) -> int:
        """How many texts were spilled."""
        return len(self.noted)

    def tool(self, name: str, body: Callable[[Args, ToolRunContext], object], **extra: Any) -> None:
        self.location.register(
            define_tool(
                name=name,
                description="d",
                parameters=Args,
                output=Output(str),
                execute=body,
                **extra,
            )
        )

    def echo(self, name: str = "echo", **extra: Any) -> None:
        """Register a tool whose content is its `text` argument."""
        self.tool(name, lambda args, ctx: args["text"], **extra)

    def call(self, name: str, text: str, call_id: str = "call-1") -> ToolExecutionResult:
        call = ToolCall(call_id, name, {"text": text}, CancelSignal())
        result: ToolExecutionResult = self.run(execute(self.location.catalog(), call))
        return result


def shown(result: ToolExecutionResult) -> str:
    """The one text block the model sees."""
    (block,) = [b for b in result.content if isinstance(b, TextBlock)]
    return block.text


def where(text: str) -> str:
    """The spill path a cut text names."""
    return text.split("The whole output is saved at ", 1)[1].split(": read it with", 1)[0]


def within(text: str, limits: OutputLimits) -> bool:
    return count_lines(text) <= limits.lines and count_bytes(text) <= limits.bytes


class Refusing(SpillStore):
    """A spill store that cannot keep anything (a full disk)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def keep(self, call_id: str, tool: str, text: str) -> SpillLocation:
        raise self.error

    async def open(self, call_id: str, tool: str) -> SpillWriter:
        raise self.error


def _cut_by(stage: Stage, limits: OutputLimits, text: str) -> str:
    stage.echo("limited", output_limits=limits)
    return shown(stage.call("limited", text))


class BoundingScenarios:
    """Output over the limits cut for the model and kept whole in the spill store."""

    @pytest.fixture
    def stage(self, interpreter_factory: InterpreterFactory) -> Stage:
        """The interpreter under test with its own spill store."""
        return Stage(interpreter_factory)

    def test_a_spill_written_as_it_comes_keeps_every_byte_under_a_new_path(
        self, stage: Stage
    ) -> None:
        chunks = [b"line 1\n", b"", b"\xff not text\n", b"x" * 100_000]

        async def stream(args: Args, ctx: ToolRunContext) -> str:
            writer = await ctx.runtime.spills.open(ctx.call_id, "stream")
            for chunk in chunks:
                await writer.write(chunk)
            await writer.close()
            return writer.location.path

        stage.tool("stream", stream)
        first, second = (stage.call("stream", "", "c"), stage.call("stream", "", "c"))
        assert isinstance(first, ToolExecutionSuccess)
        assert isinstance(second, ToolExecutionSuccess)
        assert first.value != second.value  # the same call id, a new name
        assert stage.streamed == {
            str(first.value): bytearray(b"".join(chunks)),
            str(second.value): bytearray(b"".join(chunks)),
        }

    def test_ten_thousand_lines_are_cut_and_kept_whole(self, stage: Stage) -> None:
        stage.echo()
        whole = "".join(f"line {n}\n" for n in range(1, 10_001))
        result = stage.call("echo", whole)
        assert isinstance(result, ToolExecutionSuccess)
        text = shown(result)
        assert within(text, DEFAULT)
        assert text.startswith("line 1\nline 2\n")
        assert "[output cut: showing 1998 of 10000 lines (" in text
        assert "read it with `read` (offset and limit) or search it with `grep`.]" in text
        assert stage.kept(where(text)) == whole
        assert result.value == whole  # the value is the tool's own; only the content is cut

    def test_a_megabyte_on_one_line_is_cut_inside_the_line(self, stage: Stage) -> None:
        stage.echo()
        whole = "x" * 1_000_000
        text = shown(stage.call("echo", whole))
        assert within(text, DEFAULT)
        assert text.startswith("x" * 40_000)
        assert f"lines ({count_bytes(text.split(chr(10))[0])} of 1000000 bytes)" in text
        assert stage.kept(where(text)) == whole

    def test_exactly_at_the_limits_nothing_is_cut(self, stage: Stage) -> None:
        stage.echo()
        lines = "".join(f"{n}\n" for n in range(2000))  # 2000 lines, under 50 KB
        assert shown(stage.call("echo", lines)) == lines
        size = "é" * (DEFAULT.bytes // 2)  # exactly 51,200 bytes of two-byte characters
        assert shown(stage.call("echo", size, "call-2")) == size
        assert stage.spilled() == 0
        over = shown(stage.call("echo", lines + "one more", "call-3"))
        assert "showing 1998 of 2001 lines" in over
        assert stage.spilled() == 1

    @pytest.mark.parametrize("character", ["é", "€", "😀"])
    def test_a_cut_never_splits_a_character(self, stage: Stage, character: str) -> None:
        limits = OutputLimits(lines=10, bytes=1001)  # a cut at any width falls inside one
        stage.echo(output_limits=limits)
        whole = character * 5000
        text = shown(stage.call("echo", whole))
        head = text.split("\n", 1)[0]
        assert head == character * len(head)
        assert len(head.encode()) > 0
        assert within(text, limits)
        assert stage.kept(where(text)) == whole

    def test_a_tool_declares_its_own_limits(self, stage: Stage) -> None:
        stage.echo("small", output_limits=OutputLimits(lines=10, bytes=10_000))
        stage.echo("default")
        eleven = "".join(f"{n}\n" for n in range(11))
        cut = shown(stage.call("small", eleven))
        assert cut.startswith("0\n1\n2\n")
        assert "showing 8 of 11 lines" in cut
        assert stage.kept(where(cut)) == eleven
        assert shown(stage.call("default", eleven, "call-2")) == eleven

    def test_a_location_sets_the_limits_of_tools_that_declare_none(self, stage: Stage) -> None:
        stage.location = Location(output_limits=OutputLimits(lines=5, bytes=1000))
        stage.echo("plain")
        stage.echo("roomy", output_limits=OutputLimits(lines=100, bytes=10_000))
        six = "".join(f"{n}\n" for n in range(6))
        cut = shown(stage.call("plain", six))
        assert "showing 3 of 6 lines" in cut
        assert within(cut, OutputLimits(5, 1000))
        assert shown(stage.call("roomy", six, "call-2")) == six

    def test_a_failure_and_finalized_content_are_bounded_too(self, stage: Stage) -> None:
        def failing(args: Args, ctx: ToolRunContext) -> Result[str, ToolFailure]:
            return Failure(ToolFailure(args["text"]))

        stage.tool("failing", failing)
        whole = "boom\n" * 3000
        result = stage.call("failing", whole)
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.code == ErrorCode.TOOL_ERROR
        assert within(shown(result), DEFAULT)
        assert stage.kept(where(shown(result))) == whole

        def finalize(identity: object, result: ToolExecutionResult) -> Sequence[ContentBlock]:
            return [TextBlock("final\n" * 3000)]

        stage.echo("finalized", finalize_content=finalize)
        final = shown(stage.call("finalized", "short", "call-2"))
        assert final.startswith("final\n")
        assert within(final, DEFAULT)

    def test_images_pass_whole_and_text_blocks_become_one_cut(self, stage: Stage) -> None:
        image = ImageBlock("aGVsbG8=" * 100_000, "image/png")

        def finalize(identity: object, result: ToolExecutionResult) -> Sequence[ContentBlock]:
            return [image, TextBlock("a\n" * 1500), TextBlock("b" * 10), TextBlock("c\n" * 1500)]

        stage.echo("mixed", finalize_content=finalize)
        result = stage.call("mixed", "x")
        first, second = result.content
        assert first is image  # not counted, not cut, in its place
        assert isinstance(second, TextBlock)
        assert second.text.startswith("a\n" * 1500 + "b" * 10 + "\nc\n")
        assert within(second.text, DEFAULT)
        assert stage.kept(where(second.text)) == "a\n" * 1500 + "b" * 10 + "\n" + "c\n" * 1500

    def test_a_spill_that_fails_is_output_not_kept_after_the_tool_ran(
        self, interpreter_factory: InterpreterFactory
    ) -> None:
        stage = Stage(interpreter_factory, Refusing(SpillError("No space left on device")))
        ran: list[str] = []

        def body(args: Args, ctx: ToolRunContext) -> str:
            ran.append(ctx.call_id)
            return args["text"]

        stage.tool("noisy", body)
        result = stage.call("noisy", "x\n" * 5000)
        assert ran == ["call-1"]
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.code == ErrorCode.OUTPUT_NOT_KEPT
        assert result.error.message == (
            "`noisy` ran, but its output (5000 lines, 10000 bytes) is over the limits (2000 lines, "
            "51200 bytes) and could not be kept whole: No space left on device"
        )
        assert stage.reported == []
        assert shown(stage.call("noisy", "small", "call-2")) == "small"  # no spill needed

    def test_a_spill_store_that_raises_is_reported_and_still_output_not_kept(
        self, interpreter_factory: InterpreterFactory
    ) -> None:
        stage = Stage(interpreter_factory, Refusing(RuntimeError("bug in the store")))
        stage.echo()
        result = stage.call("echo", "x\n" * 5000)
        assert isinstance(result, ToolExecutionFailure)
        assert result.error.code == ErrorCode.OUTPUT_NOT_KEPT
        assert result.error.message.endswith(
            "could not be kept whole: RuntimeError: bug in the store"
        )
        assert stage.reported == ["the spill store keeping the output of `echo`"]

    def test_observers_and_the_record_see_the_cut_result(self, stage: Stage) -> None:
        seen: list[ToolExecutionResult] = []
        stage.location.on_result(lambda execution, result: seen.append(result))
        stage.echo()
        result = stage.call("echo", "y\n" * 3000)
        assert seen == [result]
        assert within(shown(seen[0]), DEFAULT)

    def test_spills_of_calls_with_the_same_id_do_not_overwrite_each_other(
        self, stage: Stage
    ) -> None:
        stage.echo()
        first = shown(stage.call("echo", "1\n" * 3000, "same"))
        second = shown(stage.call("echo", "2\n" * 3000, "same"))
        assert where(first) != where(second)
        assert stage.kept(where(first)) == "1\n" * 3000
        assert stage.kept(where(second)) == "2\n" * 3000

    def test_limits_too_small_for_the_note_show_the_note_cut(self, stage: Stage) -> None:
        limits = OutputLimits(lines=1, bytes=40)
        text = _cut_by(stage, limits, "z\n" * 100)
        assert text == "[output cut: showing 0 of 100 lines (0 of 200 bytes)"[:40]
        assert stage.spilled() == 1
