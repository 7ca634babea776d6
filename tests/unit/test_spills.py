"""The folder spill stores (sync and anyio faces) and the in-memory one: each spill a new 0600
file (never through a planted link, never over another spill), failures as `SpillError`."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolfx.core.runtime import SPILL_BUDGET, SpillBudget, SpillError, SpillLocation, SpillStore
from toolfx.interpreters._os.spills import AnyioFolderSpills, FolderSpills
from toolfx.interpreters.testing import MemorySpills


def _inline(coroutine: Coroutine[Any, Any, SpillLocation]) -> SpillLocation:
    try:
        coroutine.send(None)
    except StopIteration as stop:
        kept: SpillLocation = stop.value
        return kept
    raise AssertionError("the sync face suspended")


@pytest.fixture(params=["sync", "asyncio", "trio"])
def keep(request: pytest.FixtureRequest) -> Callable[[str | None], Callable[[str, str], str]]:
    """A keeper for a folder under the face (sync inline, anyio in a thread on each backend)."""

    def make(folder: str | None) -> Callable[[str, str], str]:
        if request.param == "sync":
            store: SpillStore = FolderSpills(folder)
            return lambda call_id, text: _inline(store.keep(call_id, "tool", text)).path
        anyio_store = AnyioFolderSpills(folder)

        def run(call_id: str, text: str) -> str:
            async def main() -> SpillLocation:
                return await anyio_store.keep(call_id, "tool", text)

            return anyio.run(main, backend=request.param).path

        return run

    return make


def test_a_spill_is_a_private_file_named_after_the_call(keep: Any, tmp_path: Path) -> None:
    folder = str(tmp_path / "state" / "outputs")
    path = keep(folder)("call/1 é", "whole\ntext é\n")
    assert path == f"{folder}/call_1__.txt"
    assert Path(path).read_text("utf-8") == "whole\ntext é\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700


def test_a_taken_name_or_a_planted_link_gets_a_new_name(keep: Any, tmp_path: Path) -> None:
    folder = tmp_path / "outputs"
    folder.mkdir()
    target = tmp_path / "target"
    target.write_text("untouched")
    (folder / "c.txt").symlink_to(target)
    store = keep(str(folder))
    first, second = store("c", "one"), store("c", "two")
    assert len({first, second, str(folder / "c.txt")}) == 3
    assert (Path(first).read_text(), Path(second).read_text()) == ("one", "two")
    assert target.read_text() == "untouched"


def test_a_symlinked_spill_folder_is_refused(keep: Any, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(SpillError, match=f"could not save the whole output in {link}"):
        keep(str(link))("c", "text")
    assert list(real.iterdir()) == []


def test_without_a_folder_spills_go_to_one_private_temporary_folder(keep: Any) -> None:
    store = keep(None)
    first, second = Path(store("a", "1")), Path(store("b", "2"))
    assert first.parent == second.parent
    assert first.parent.name.startswith("toolfx-spills-")
    assert stat.S_IMODE(os.stat(first.parent).st_mode) == 0o700
    for path in (first, second):
        path.unlink()
    first.parent.rmdir()


def test_a_folder_that_cannot_be_made_is_a_spill_error(keep: Any, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(SpillError) as raised:
        keep(str(tmp_path / "file" / "outputs"))("c", "text")
    assert raised.value.reason.endswith("Not a directory")


def test_a_relative_folder_is_refused() -> None:
    with pytest.raises(ValueError, match="absolute path"):
        FolderSpills("outputs")


def test_memory_spills_keep_each_text_under_a_new_path() -> None:
    store = MemorySpills()
    paths = [_inline(store.keep("c", "tool", text)).path for text in ("1", "2", "3")]
    assert paths == ["memory://spills/c.txt", "memory://spills/c-2.txt", "memory://spills/c-3.txt"]
    assert dict(store.texts) == dict(zip(paths, ["1", "2", "3"], strict=True))


Stream = Callable[[str | None, str, list[bytes]], str]
"""Open a spill for a call in a folder, write the chunks, close it: its path."""


@pytest.fixture(params=["sync", "asyncio", "trio"])
def stream(request: pytest.FixtureRequest) -> Stream:
    """Streamed spills under the face (sync inline, anyio in a thread on each backend)."""

    async def write(store: SpillStore, call_id: str, chunks: list[bytes]) -> str:
        writer = await store.open(call_id, "bash")
        for chunk in chunks:
            await writer.write(chunk)
        await writer.close()
        await writer.close()  # a second close does nothing
        with pytest.raises(SpillError, match="is closed"):
            await writer.write(b"late")
        return writer.location.path

    def run(folder: str | None, call_id: str, chunks: list[bytes]) -> str:
        if request.param == "sync":
            coroutine = write(FolderSpills(folder), call_id, chunks)
            try:
                coroutine.send(None)
            except StopIteration as stop:
                path: str = stop.value
                return path
            raise AssertionError("the sync face suspended")
        store = AnyioFolderSpills(folder)
        return anyio.run(write, store, call_id, chunks, backend=request.param)

    return run


def test_a_streamed_spill_keeps_every_byte_in_a_new_private_file(
    stream: Stream, tmp_path: Path
) -> None:
    folder = str(tmp_path / "outputs")
    chunks = [b"line 1\n", b"", b"\xff\xfe not text\n", b"x" * 200_000]
    first, second = stream(folder, "call/1", chunks), stream(folder, "call/1", [b"again"])
    assert first == f"{folder}/call_1.txt"
    assert second != first
    assert second.startswith(f"{folder}/call_1-")
    assert Path(first).read_bytes() == b"".join(chunks)
    assert Path(second).read_bytes() == b"again"
    assert stat.S_IMODE(os.stat(first).st_mode) == 0o600


def test_a_write_that_fails_removes_the_spill_and_says_why(
    stream: Stream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "outputs"
    written = os.write

    def full(descriptor: int, data: Any) -> int:
        if bytes(data).startswith(b"second"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return written(descriptor, data)

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(SpillError) as raised:
        stream(str(folder), "c", [b"first\n", b"second\n"])
    assert raised.value.reason == f"could not save the whole output in {folder}/c.txt: " + (
        "No space left on device"
    )
    assert list(folder.iterdir()) == []


def test_memory_spills_stream_bytes_under_new_paths_shared_with_kept_texts() -> None:
    store = MemorySpills()

    async def both() -> list[str]:
        kept = await store.keep("c", "tool", "text")
        writer = await store.open("c", "bash")
        await writer.write(b"a\xff")
        await writer.write(b"b")
        await writer.close()
        with pytest.raises(SpillError, match="is closed"):
            await writer.write(b"late")
        return [kept.path, writer.location.path]

    coroutine = both()
    with pytest.raises(StopIteration) as stopped:
        coroutine.send(None)
    paths = stopped.value.value
    assert paths == ["memory://spills/c.txt", "memory://spills/c-2.txt"]
    assert store.saved == {paths[0]: b"text", paths[1]: b"a\xffb"}
    assert store.texts == {paths[0]: "text", paths[1]: "a\ufffdb"}


Budgeted = Callable[[int], SpillStore]
"""A store of each kind (sync folder, anyio folder, memory) with a budget of bytes."""


@pytest.fixture(params=["sync", "anyio", "memory"])
def budgeted(request: pytest.FixtureRequest, tmp_path: Path) -> Budgeted:
    def make(budget: int) -> SpillStore:
        folder = str(tmp_path / "outputs")
        if request.param == "sync":
            return FolderSpills(folder, budget)
        if request.param == "anyio":
            return AnyioFolderSpills(folder, budget)
        return MemorySpills(budget)

    return make


def _saved(store: SpillStore, path: str) -> bytes:
    return store.saved[path] if isinstance(store, MemorySpills) else Path(path).read_bytes()


def test_all_the_spills_of_a_store_save_at_most_its_budget_then_saving_is_refused(
    budgeted: Budgeted,
) -> None:
    store = budgeted(10)

    async def spend() -> tuple[list[int], str, str]:
        first = await store.open("a", "bash")
        written = [await first.write(b"123456"), await first.write(b"789")]
        second = await store.open("b", "bash")
        written += [await second.write(b"abc"), await second.write(b"def")]
        await first.close()
        await second.close()
        with pytest.raises(SpillError, match=r"the 10 bytes of output this session may save"):
            await store.open("c", "bash")
        with pytest.raises(SpillError, match=r"\(0 left\)"):
            await store.keep("d", "tool", "x")
        return written, first.location.path, second.location.path

    written, first, second = anyio.run(spend)
    assert written == [6, 3, 1, 0]  # the budget is spent by the first byte of "abc" on
    assert (_saved(store, first), _saved(store, second)) == (b"123456789", b"a")


def test_a_kept_text_over_what_is_left_of_the_budget_is_refused_whole(budgeted: Budgeted) -> None:
    store = budgeted(8)

    async def keep() -> str:
        kept = await store.keep("a", "tool", "é" * 3)  # 6 bytes
        with pytest.raises(SpillError, match=r"\(2 left\)"):
            await store.keep("b", "tool", "abc")
        return kept.path

    assert _saved(store, anyio.run(keep)) == "ééé".encode()


def test_the_default_budget_is_512_mib_and_a_negative_one_is_refused() -> None:
    assert SPILL_BUDGET == 512 << 20
    assert SpillBudget().total == SPILL_BUDGET
    with pytest.raises(ValueError, match="not -1"):
        SpillBudget(-1)
