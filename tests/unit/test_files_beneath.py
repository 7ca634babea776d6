"""Confinement of every file operation below `within`, on every interpreter's file system:
symlinks and `..` that lead out are OUTSIDE, loops LOOP, odd names INVALID_PATH; the local
lookup by `openat2` and by the component walk agree; no descriptor is left open."""

from __future__ import annotations

import contextlib
import functools
import os
import posixpath
import tempfile
from collections.abc import Awaitable
from pathlib import Path
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.test_files import LocalWorld, World, failure, under, world
from toolfx.core.runtime import Description, FileError, FileErrorKind, FileSystem, Runtime
from toolfx.interpreters._file_paths import resolve_path
from toolfx.interpreters._os.beneath import Lookup
from toolfx.interpreters._os.files import LocalFileSystem
from toolfx.interpreters.sync import SyncRuntime, run_sync

__all__ = ["world"]

OPERATIONS = ["stat", "lstat-below", "read", "list", "write"]


async def _operate(files: FileSystem, operation: str, path: str, within: str) -> object:
    match operation:
        case "stat":
            return await files.stat(path, within=within)
        case "lstat-below":
            return await files.stat(posixpath.join(path, "x"), within=within, follow_symlinks=False)
        case "read":
            return await files.read_bytes(path, within=within)
        case "list":
            return await files.list_dir(path, within=within)
        case "write":
            await files.write_bytes(posixpath.join(path, "new.txt"), b"data", within=within)
            return None
    raise AssertionError(operation)


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize(
    ("link", "target"),
    [("up", ".."), ("out", "../outside"), ("abs", "/"), ("deep", "sub/../../outside")],
)
def test_a_symlink_leading_out_is_outside_and_touches_nothing(
    world: World, operation: str, link: str, target: str
) -> None:
    world.add_dir("sub")
    world.add_symlink(link, target)
    path = under(world, link)
    error = failure(world, lambda files: _operate(files, operation, path, world.root))
    assert error.kind is FileErrorKind.OUTSIDE
    assert error.path.startswith(path)


@pytest.mark.parametrize("operation", OPERATIONS)
def test_dot_dot_above_within_and_a_path_not_below_it_are_outside(
    world: World, operation: str
) -> None:
    world.add_dir("sub")
    for path in (under(world, "sub", "..", ".."), "/elsewhere", world.root + "-sibling"):
        error = failure(world, functools.partial(_on, operation, path, world.root))
        assert error.kind is FileErrorKind.OUTSIDE, path


def _on(operation: str, path: str, within: str, files: FileSystem) -> Awaitable[object]:
    return _operate(files, operation, path, within)


def test_symlinks_that_stay_below_are_followed(world: World) -> None:
    world.add_file("sub/a.txt", b"inside")
    world.add_symlink("sub/up", "..")
    world.add_symlink("hop", "sub/up/sub/a.txt")

    async def program(files: FileSystem) -> tuple[bytes, bytes]:
        await files.write_bytes(under(world, "hop"), b"changed", within=world.root)
        return (
            await files.read_bytes(under(world, "sub", "a.txt"), within=world.root),
            await files.read_bytes(under(world, "sub", "up", "hop"), within=world.root),
        )

    assert world.run(program) == (b"changed", b"changed")


@pytest.mark.parametrize("operation", ["stat", "read", "list", "write"])
@pytest.mark.parametrize("name", ["bad-\udcff.txt", "x" * 256, "a/" * 2050 + "b", "nul\0.txt"])
def test_odd_names_are_invalid_paths(world: World, operation: str, name: str) -> None:
    path = under(world, name)
    error = failure(world, lambda files: _operate(files, operation, path, world.root))
    assert error.kind is FileErrorKind.INVALID_PATH
    assert error.path.startswith(path)


def test_writing_a_path_with_a_trailing_slash_fails_and_leaves_the_file(world: World) -> None:
    world.add_file("a.txt", b"kept")
    error = failure(
        world, lambda files: files.write_bytes(under(world, "a.txt") + "/", b"x", within=world.root)
    )
    assert error.kind is FileErrorKind.IS_A_DIRECTORY
    assert world.run(lambda files: files.read_bytes(under(world, "a.txt"), within=world.root)) == (
        b"kept"
    )


def test_read_takes_a_window_by_offset_and_limit(world: World) -> None:
    world.add_file("a.bin", bytes(range(10)))
    path = under(world, "a.bin")

    async def program(files: FileSystem) -> list[bytes]:
        return [
            await files.read_bytes(path, within=world.root, offset=offset, limit=limit)
            for offset, limit in ((0, 3), (4, None), (8, 5), (10, 1), (99, None))
        ]

    assert world.run(program) == [b"\0\1\2", bytes(range(4, 10)), b"\x08\x09", b"", b""]


def test_resolve_is_one_step_per_name() -> None:
    steps: list[str] = []

    class Counting:
        def enter(self, name: str) -> Literal["directory"]:
            steps.append(name)
            return "directory"

        def leave(self) -> None:
            steps.append("..")

        def to_root(self) -> None:
            steps.append("/")

    path = "/a" * 2000
    assert resolve_path(path, Counting()) == path
    assert len(steps) == 2000


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.parametrize("lookup", ["openat2", "walk"])
def test_no_descriptor_is_left_open(tmp_path: Path, lookup: Lookup) -> None:
    world = LocalWorld(tmp_path, "sync")
    world.add_file("sub/a.txt", b"x")
    world.add_symlink("out", "..")
    world.add_symlink("loop", "loop")
    files = LocalFileSystem(lookup=lookup)

    async def program(runtime: Runtime) -> None:
        for name in ("sub/a.txt", "sub", "out", "loop", "missing/x", "sub/a.txt/", "out/x"):
            path = under(world, name)
            for operation in OPERATIONS:
                with contextlib.suppress(FileError):
                    await _operate(runtime.files, operation, path, world.root)
            with contextlib.suppress(FileError):
                await runtime.files.resolve(path)

    before = _open_descriptors()
    run_sync(Description(program), SyncRuntime(files=files))
    assert _open_descriptors() == before


# openat2 and the walk agree on random trees ----------------------------------------------------

NAMES = st.sampled_from(["a", "b", "c"])
TARGETS = st.sampled_from(["a", "b", "../a", "..", "../..", "/", "c/a", "b/../a", "x", "c"])
TREES = st.lists(
    st.tuples(st.sampled_from(["file", "dir", "link"]), st.lists(NAMES, min_size=1, max_size=2),
              TARGETS),
    max_size=8,
)  # fmt: skip
PATHS = st.lists(st.sampled_from(["a", "b", "c", "..", ".", ""]), min_size=1, max_size=4)


def _build(root: str, tree: list[tuple[str, list[str], str]]) -> None:
    for kind, names, target in tree:
        path = posixpath.join(root, *names)
        try:
            match kind:
                case "file":
                    Path(path).write_bytes(path.encode())
                case "dir":
                    os.mkdir(path)
                case _:
                    os.symlink(target, path)
        except OSError:
            pass  # a name taken or below a missing folder: the tree is what it is


def _outcomes(lookup: Lookup, root: str, paths: list[list[str]]) -> list[object]:
    async def program(runtime: Runtime) -> list[object]:
        seen: list[object] = []
        for names in paths:
            path = posixpath.join(root, *names)
            for operation in ("stat", "read", "list", "lstat-below"):
                try:
                    found = await _operate(runtime.files, operation, path, root)
                    seen.append(found if operation == "read" else repr(found)[:0] + operation)
                except FileError as error:
                    seen.append(error.kind)
        return seen

    return run_sync(Description(program), SyncRuntime(files=LocalFileSystem(lookup=lookup)))


@settings(max_examples=60)
@given(TREES, st.lists(PATHS, min_size=1, max_size=6))
def test_openat2_and_the_walk_agree_on_random_trees(
    tree: list[tuple[str, list[str], str]], paths: list[list[str]]
) -> None:
    with tempfile.TemporaryDirectory() as base:
        root = os.path.realpath(posixpath.join(base, "ws"))
        os.mkdir(root)
        _build(root, tree)
        assert _outcomes("walk", root, paths) == _outcomes("openat2", root, paths)


async def _resolved(files: FileSystem, operation: str, path: str, within: str) -> object:
    match operation:
        case "stat":
            return await files.stat(path, within=within, resolved=True)
        case "read":
            return await files.read_bytes(path, within=within, resolved=True)
        case "list":
            return await files.list_dir(path, within=within, resolved=True)
        case "write":
            await files.write_bytes(path, b"changed", within=within, resolved=True)
            return None
    raise AssertionError(operation)


@pytest.mark.parametrize("operation", ["stat", "read", "write"])
@pytest.mark.parametrize("link", ["hop", "folder/a.txt"])
def test_a_resolved_operation_meeting_a_symlink_below_is_changed(
    world: World, operation: str, link: str
) -> None:
    world.add_file("sub/a.txt", b"inside")
    world.add_symlink("hop", "sub/a.txt")
    world.add_symlink("folder", "sub")
    path = under(world, *link.split("/"))
    error = failure(world, lambda files: _resolved(files, operation, path, world.root))
    assert (error.kind, error.path) == (FileErrorKind.CHANGED, path)
    assert (
        world.run(lambda files: files.read_bytes(under(world, "sub", "a.txt"), within=world.root))
        == b"inside"
    )


@pytest.mark.parametrize("lookup", ["openat2", "walk"])
@pytest.mark.parametrize("operation", ["stat", "read", "list", "write"])
def test_both_local_lookups_refuse_a_symlink_when_resolved(
    tmp_path: Path, lookup: Lookup, operation: str
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_bytes(b"inside")
    (tmp_path / "folder").symlink_to("sub")
    path = str(tmp_path / "folder" / ("a.txt" if operation != "list" else ""))
    files = LocalFileSystem(lookup=lookup)
    with pytest.raises(FileError) as raised:
        run_sync(
            Description(
                lambda runtime: _resolved(files, operation, path.rstrip("/"), str(tmp_path))
            )
        )
    assert raised.value.kind is FileErrorKind.CHANGED
    assert (tmp_path / "sub" / "a.txt").read_bytes() == b"inside"
