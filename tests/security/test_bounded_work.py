"""Bounded work under a hostile model: every pathological argument of issue 10 is refused or
finishes in bounded work, under every interpreter (sync, anyio on asyncio and trio, and the
deterministic one), on real temporary folders or an in-memory one.

Assertions are on work (slices, entries, bytes) and peak memory; CPU time is recorded per input
class in the suite's figures (`make security` prints them), never asserted.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.leaves_support import ROOT, failure, text_of, value_of
from tests.security.figures import within_budget as record
from tests.security.terminal_support import plain, render
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.plaintext import MAX_DIFF_LINES, unified_text_diff
from toolfx.core.registry import Location
from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import DiffResultCard, ErrorCode, FileDiff, ToolExecutionResult
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio
from toolfx.interpreters.cli._cards import HEAD_LINES, TAIL_LINES, call_body, result_body
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import DeterministicInterpreter, MemoryFileSystem
from toolfx.leaves import grep as grep_module
from toolfx.leaves._line_search import SLICE_BYTES, SliceScan, scan_slice
from toolfx.leaves._regexes import MAX_PATTERN_CHARS
from toolfx.leaves._search import SearchLimits
from toolfx.leaves.edit import EditArgs, edit_tool
from toolfx.leaves.glob import glob_tool
from toolfx.leaves.grep import grep_tool
from toolfx.leaves.workspace import Workspace

T = TypeVar("T")

INTERPRETERS = ["sync", "asyncio", "trio", "deterministic"]


class Runner:
    """Runs one call of the search leaves under one interpreter over a tree of files."""

    def __init__(self, interpreter: str, tmp_path: Path) -> None:
        self.interpreter = interpreter
        self.root = ROOT if interpreter == "deterministic" else str(tmp_path.resolve() / "ws")
        self.memory = MemoryFileSystem.from_files({f"{ROOT}/.keep": ""})
        self._calls = 0

    def files(self, tree: Mapping[str, str | bytes]) -> None:
        """Lay out `tree` (paths relative to the root)."""
        if self.interpreter == "deterministic":
            self.memory = MemoryFileSystem.from_files(
                {f"{ROOT}/.keep": "", **{f"{ROOT}/{path}": data for path, data in tree.items()}}
            )
            return
        for path, data in tree.items():
            target = Path(self.root) / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data.encode() if isinstance(data, str) else data)
        Path(self.root).mkdir(parents=True, exist_ok=True)

    def call(
        self,
        name: str,
        limits: SearchLimits | None = None,
        signal: CancelSignal | None = None,
        **arguments: Any,
    ) -> ToolExecutionResult:
        """One call of `name` ("glob" or "grep") through the pipeline."""
        workspace = Workspace(self.root)
        location = Location()
        location.register(glob_tool(workspace, limits))
        location.register(grep_tool(workspace, limits))
        self._calls += 1
        call = ToolCall(f"call-{self._calls}", name, arguments, signal or CancelSignal())
        description = execute(location.catalog(), call)
        result: ToolExecutionResult
        if self.interpreter == "deterministic":
            result = DeterministicInterpreter(files=self.memory).run(description)
        elif self.interpreter == "sync":
            result = run_sync(description, SyncRuntime())
        elif self.interpreter == "trio":
            result = run_anyio(description, "trio", AnyioRuntime())
        else:
            result = run_anyio(description, "asyncio", AnyioRuntime())
        return result


@pytest.fixture(params=INTERPRETERS)
def runner(request: pytest.FixtureRequest, tmp_path: Path) -> Runner:
    """Each scenario runs under every interpreter."""
    return Runner(request.param, tmp_path)


# regexes ----------------------------------------------------------------------------------------


def test_a_backtracking_regex_finishes_in_linear_work(runner: Runner) -> None:
    text = ("a" * 50_000 + "!\n") * 4
    runner.files({"evil.txt": text, "fine.txt": "aaa\n"})
    result = record("regex backtracking", lambda: runner.call("grep", regex="(a+)+$"))
    value = value_of(result)
    assert (value["total"], value["files"]) == (1, 1)
    assert value["matches"][0]["path"] == "fine.txt"


@pytest.mark.parametrize(
    ("regex", "complaint"),
    [
        ("(a)\\1", "backreference \\1 at position 3"),
        ("(?=a)b", "lookahead '(?=' at position 0"),
        ("x(?<!a)b", "negative lookbehind '(?<!' at position 1"),
        ("a*+", "possessive quantifier '*+' at position 1"),
        ("\\Aimport", "text anchor \\A at position 0"),
        ("a" * (MAX_PATTERN_CHARS + 1), f"at most {MAX_PATTERN_CHARS} are accepted"),
        ("(" * 900 + ")" * 900, "characters long"),
        ("x{1001}", "invalid repetition size"),
    ],
)
def test_a_regex_the_engine_cannot_run_in_linear_time_is_refused_by_name(
    runner: Runner, regex: str, complaint: str
) -> None:
    runner.files({"a.txt": "a\n"})
    result = failure(record("regex refused", lambda: runner.call("grep", regex=regex)))
    assert result.error.code == ErrorCode.INVALID_ARGS
    assert complaint in result.error.message


# globs ------------------------------------------------------------------------------------------

LONG_NAME = "a" * 200 + ".txt"
STAR_GLOB = "*a" * 40 + "*b"


def test_a_backtracking_glob_finishes_in_linear_work(runner: Runner) -> None:
    runner.files({LONG_NAME: "a\n", f"d/{LONG_NAME}": "a\n"})
    globbed = record("glob backtracking", lambda: runner.call("glob", pattern=STAR_GLOB))
    assert value_of(globbed)["total"] == 0
    grepped = record(
        "include backtracking", lambda: runner.call("grep", regex="a", include=STAR_GLOB)
    )
    assert value_of(grepped)["total"] == 0
    nested = "{a," * 10 + "a," * 40 + "}" * 10
    assert value_of(runner.call("glob", pattern="**/" * 300 + "*.txt"))["total"] == 2
    assert value_of(runner.call("glob", pattern=nested))["total"] == 0


def test_a_glob_too_long_or_nested_too_deep_is_refused(runner: Runner) -> None:
    runner.files({"a.txt": ""})
    too_long = failure(runner.call("glob", pattern="*" * (MAX_PATTERN_CHARS + 1)))
    assert too_long.error.code == ErrorCode.INVALID_ARGS
    deep = failure(runner.call("glob", pattern="{a," * 11 + "b" + "}" * 11))
    assert "nests {...} alternatives more than 10 deep" in deep.error.message


def test_glob_output_is_bounded_in_bytes_and_the_loss_counted(runner: Runner) -> None:
    names = {f"{'n' * 180}{index:03}.txt": "" for index in range(300)}
    runner.files(names)
    result = record("huge glob output", lambda: runner.call("glob", pattern="*.txt"))
    value = value_of(result)
    assert value["total"] == 300
    assert value["truncated"] is True
    assert sum(len(path) + 1 for path in value["paths"]) <= 50 * 1024
    assert f"of {value['total']} files" in text_of(result)


def test_a_walk_stops_at_its_entry_limit_and_says_so(runner: Runner) -> None:
    runner.files({f"d{folder}/f{index}.txt": "hit\n" for folder in range(5) for index in range(40)})
    limits = SearchLimits(max_entries=50)
    result = record("huge tree", lambda: runner.call("glob", limits=limits, pattern="**/*.txt"))
    value = value_of(result)
    assert value["total"] <= 50
    assert value["stopped_early"] == "looked at 50 folder entries, the most one search may"
    assert "The search stopped early" in text_of(result)
    grepped = value_of(runner.call("grep", limits=limits, regex="hit"))
    assert grepped["total"] <= 50
    assert grepped["stopped_early"] is not None


def test_grep_stops_counting_at_its_limit_and_says_so(runner: Runner) -> None:
    runner.files({"many.txt": "x\n" * 10_000})
    limits = SearchLimits(max_counted_matches=1_000)
    result = record("dense matches", lambda: runner.call("grep", limits=limits, regex="^"))
    value = value_of(result)
    assert value["total"] == 1_000
    assert len(value["matches"]) == 100
    assert value["stopped_early"] == "counted 1000 matching lines, the most one grep counts"


def test_grep_stops_at_its_byte_budget(runner: Runner) -> None:
    runner.files({f"f{index}.txt": "y\n" * 500 for index in range(10)})
    limits = SearchLimits(max_search_bytes=3_000)
    value = value_of(runner.call("grep", limits=limits, regex="y"))
    assert value["total"] == 1_500  # three files of 1,000 bytes
    assert value["stopped_early"] == "searched 3000 bytes of files, the most one grep may"


# cancellation between slices --------------------------------------------------------------------


def test_a_cancel_is_seen_before_the_next_slice(
    runner: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner.files({"big.txt": ("line\n" * (SLICE_BYTES // 5)) * 8})
    signal = CancelSignal()
    slices: list[int] = []

    def counting_scan(*arguments: Any) -> SliceScan:
        slices.append(1)
        if len(slices) == 3:
            signal.cancel("stop")
        return scan_slice(*arguments)

    monkeypatch.setattr(grep_module, "scan_slice", counting_scan)
    result = failure(runner.call("grep", signal=signal, regex="line"))
    assert result.error.code == ErrorCode.ABORTED
    assert len(slices) == 3  # no slice ran after the signal was set


# diffs ------------------------------------------------------------------------------------------


CRAFTED_LINES = 90_000
CRAFTED_OLD = "".join(f"{n % 100}\n" for n in range(CRAFTED_LINES))  # 260 KB: 100 lines, each
CRAFTED_NEW = "".join(f"{-n % 100}\n" for n in range(CRAFTED_LINES))  # under difflib's junk cut
"""A before and after that take difflib cubic work (hours): every line is rare enough to escape
its junk heuristic, and the order is reversed, so it finds only short matches everywhere."""
STUBBORN_OLD = "".join(f"{n}\n" for n in range(MAX_DIFF_LINES))  # the longest middle Myers
STUBBORN_NEW = "".join(f"{n}\n" for n in range(MAX_DIFF_LINES, 0, -1))  # gets, fully searched
SHOWN_CRAFTED = f"⋮ {3 + 1 + 2 * (CRAFTED_LINES - 1) - HEAD_LINES - TAIL_LINES} more lines"
"""What a card shows of the crafted diff: its header, the common first line, then every other
line out and in, elided."""


def test_a_crafted_diff_input_finishes_in_bounded_work() -> None:
    diff = record("crafted diff", lambda: unified_text_diff("f.txt", CRAFTED_OLD, CRAFTED_NEW))
    assert diff.count("\n-") == CRAFTED_LINES - 1  # but the first: one replaced block
    shifted = record(
        "crafted diff", lambda: unified_text_diff("f.txt", CRAFTED_OLD, "x\n" + CRAFTED_OLD)
    )
    assert shifted.splitlines()[2:4] == ["@@ -1,3 +1,4 @@", "+x"]
    stubborn = record(
        "crafted diff", lambda: unified_text_diff("f.txt", STUBBORN_OLD, STUBBORN_NEW)
    )
    assert stubborn.count("\n-") == MAX_DIFF_LINES


@pytest.mark.parametrize(
    ("old", "new", "shows"),
    [
        (CRAFTED_OLD, CRAFTED_NEW, SHOWN_CRAFTED),
        (STUBBORN_OLD, STUBBORN_NEW, "@@ -?,2000 +?,2000 @@"),
    ],
    ids=["swapped lines", "longest middle"],
)
def test_a_crafted_pending_diff_card_renders_in_bounded_work(
    old: str, new: str, shows: str
) -> None:
    present = edit_tool(Workspace(ROOT)).present_call
    assert present is not None
    view = present(EditArgs(path="f.txt", old=old, new=new))
    assert view is not None
    out = plain(record("crafted pending diff", lambda: render(call_body(view))))
    assert shows in out
    assert len(out) < 20_000  # about a screen, whatever the texts


@pytest.mark.parametrize(
    ("old", "new", "shows"),
    [
        (CRAFTED_OLD, CRAFTED_NEW, SHOWN_CRAFTED),
        (CRAFTED_OLD, "x\n" + CRAFTED_OLD, "@@ -1,3 +1,4 @@"),
        ("y" * 260_000, "z" * 260_000, "@@ -1 +1 @@"),
    ],
    ids=["swapped lines", "shifted", "one long line"],
)
def test_a_crafted_completed_diff_card_renders_in_bounded_work(
    old: str, new: str, shows: str
) -> None:
    card = DiffResultCard(diffs=(FileDiff("f.txt", old, new),), title="Edited f.txt")
    out = plain(record("crafted completed diff", lambda: render(result_body(card))))
    assert shows in out
    assert len(out) < 20_000  # about a screen, whatever the texts
