"""The file-system capability: one behavioural suite run on every interpreter's file system.

The local file system (on a temporary directory) runs through `run_sync` and through
`run_anyio` on asyncio and trio; the in-memory one runs through `DeterministicInterpreter`.
Each test sets a tree up, runs one program against `runtime.files`, and checks what it saw, so
the two implementations are shown to behave the same. A hypothesis property then compares them
operation by operation on random sequences.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Literal, Protocol, TypeVar, final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfx.core.runtime import Description, FileError, FileErrorKind, FileStat, FileSystem, Runtime
from toolfx.interpreters._os import files as local_files
from toolfx.interpreters._os.files import AnyioFileSystem, LocalFileSystem
from toolfx.interpreters.anyio import AnyioRuntime, run_anyio
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import DeterministicInterpreter, MemoryFileSystem

T = TypeVar("T")

Program = Callable[[FileSystem], Awaitable[T]]


class World(Protocol):
    """A workspace directory to set up, and a way to run a program on its file system."""

    root: str

    def add_file(self, name: str, content: bytes) -> None: ...

    def add_dir(self, name: str) -> None: ...

    def add_symlink(self, name: str, target: str) -> None: ...

    def run(self, program: Program[T]) -> T: ...


def _description(program: Program[T]) -> Description[T]:
    async def through_runtime(runtime: Runtime) -> T:
        return await program(runtime.files)

    return Description(through_runtime)


@final
class LocalWorld:
    """A workspace in a real temporary directory, run by the sync or an anyio interpreter."""

    def __init__(self, base: Path, interpreter: Literal["sync", "asyncio", "trio"]) -> None:
        self.root = os.path.realpath(base / "ws")  # the tests compare resolved paths with it
        os.mkdir(self.root)
        self.interpreter = interpreter

    def add_file(self, name: str, content: bytes) -> None:
        path = posixpath.join(self.root, name)
        os.makedirs(posixpath.dirname(path), exist_ok=True)
        Path(path).write_bytes(content)

    def add_dir(self, name: str) -> None:
        os.makedirs(posixpath.join(self.root, name), exist_ok=True)

    def add_symlink(self, name: str, target: str) -> None:
        os.symlink(target, posixpath.join(self.root, name))

    def run(self, program: Program[T]) -> T:
        if self.interpreter == "sync":
            return run_sync(_description(program))
        return run_anyio(_description(program), self.interpreter)


@final
class MemoryWorld:
    """A workspace at /ws in a `MemoryFileSystem`, run by the deterministic interpreter."""

    def __init__(self) -> None:
        self.root = "/ws"
        self.files = MemoryFileSystem()
        self.files.add_dir(self.root)

    def add_file(self, name: str, content: bytes) -> None:
        self.files.add_file(posixpath.join(self.root, name), content)

    def add_dir(self, name: str) -> None:
        self.files.add_dir(posixpath.join(self.root, name))

    def add_symlink(self, name: str, target: str) -> None:
        self.files.add_symlink(posixpath.join(self.root, name), target)

    def run(self, program: Program[T]) -> T:
        return DeterministicInterpreter(seed=3, files=self.files).run(_description(program))


@pytest.fixture(params=["sync", "asyncio", "trio", "deterministic"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> World:
    """Every behavioural test runs on each interpreter's file system."""
    match request.param:
        case "sync" | "asyncio" | "trio" as interpreter:
            return LocalWorld(tmp_path, interpreter)
        case _:
            return MemoryWorld()


def failure(world: World, program: Program[object]) -> FileError:
    """The `FileError` that `program` raises on `world`."""
    with pytest.raises(FileError) as caught:
        world.run(program)
    return caught.value


def under(world: World, *names: str) -> str:
    return posixpath.join(world.root, *names)


# stat -------------------------------------------------------------------------------------------


def test_stat_gives_kind_and_size_and_lstat_sees_the_symlink(world: World) -> None:
    world.add_file("a.txt", b"hello")
    world.add_dir("sub")
    world.add_symlink("link", "a.txt")

    async def program(files: FileSystem) -> list[FileStat]:
        return [
            await files.stat(under(world, "a.txt"), within=world.root),
            await files.stat(under(world, "sub"), within=world.root),
            await files.stat(under(world, "link"), within=world.root),
            await files.stat(under(world, "link"), follow_symlinks=False, within=world.root),
        ]

    found = world.run(program)
    assert [(s.path, s.kind, s.size) for s in found] == [
        (under(world, "a.txt"), "file", 5),
        (under(world, "sub"), "directory", 0),
        (under(world, "link"), "file", 5),
        (under(world, "link"), "symlink", len("a.txt")),
    ]
    assert all(s.mtime_ns > 0 for s in found)


@pytest.mark.parametrize("operation", ["stat", "lstat", "read", "list"])
def test_a_missing_path_is_not_found_naming_the_path(world: World, operation: str) -> None:
    missing = under(world, "nope", "x.txt")
    error = failure(world, lambda files: _operate(files, operation, missing, world.root))
    assert (error.kind, error.path) == (FileErrorKind.NOT_FOUND, missing)
    assert missing in str(error)


@pytest.mark.parametrize("below", ["/x", "/", "/.", "/..", "/x/y"])
def test_a_name_below_a_file_is_not_a_directory(world: World, below: str) -> None:
    world.add_file("a.txt", b"x")
    path = under(world, "a.txt") + below
    error = failure(world, lambda files: files.stat(path, within=world.root))
    assert (error.kind, error.path) == (FileErrorKind.NOT_A_DIRECTORY, path)


# read -------------------------------------------------------------------------------------------


def test_read_gives_at_most_limit_bytes(world: World) -> None:
    world.add_file("a.bin", bytes(range(10)))
    path = under(world, "a.bin")

    async def program(files: FileSystem) -> list[bytes]:
        return [
            await files.read_bytes(path, within=world.root, limit=limit)
            for limit in (None, 0, 3, 10, 99)
        ]

    everything = bytes(range(10))
    assert world.run(program) == [everything, b"", b"\0\1\2", everything, everything]


def test_reading_a_directory_is_is_a_directory(world: World) -> None:
    world.add_dir("sub")
    error = failure(world, lambda files: files.read_bytes(under(world, "sub"), within=world.root))
    assert (error.kind, error.path) == (FileErrorKind.IS_A_DIRECTORY, under(world, "sub"))


def test_a_negative_read_limit_is_a_programming_error(world: World) -> None:
    world.add_file("a.txt", b"x")
    with pytest.raises(ValueError, match="negative"):
        world.run(
            lambda files: files.read_bytes(under(world, "a.txt"), within=world.root, limit=-1)
        )


# write ------------------------------------------------------------------------------------------


def test_write_creates_missing_parents(world: World) -> None:
    path = under(world, "a", "b", "c.txt")

    async def program(files: FileSystem) -> tuple[bytes, str, str]:
        await files.write_bytes(path, b"deep", within=world.root)
        parent = await files.stat(under(world, "a", "b"), within=world.root)
        top = await files.stat(under(world, "a"), within=world.root)
        return await files.read_bytes(path, within=world.root), parent.kind, top.kind

    assert world.run(program) == (b"deep", "directory", "directory")


def test_write_replaces_the_content_and_leaves_no_temporary_file(world: World) -> None:
    world.add_file("a.txt", b"a much longer old content")

    async def program(files: FileSystem) -> tuple[bytes, list[str]]:
        await files.write_bytes(under(world, "a.txt"), b"new", within=world.root)
        listed = await files.list_dir(world.root, within=world.root)
        return await files.read_bytes(under(world, "a.txt"), within=world.root), [
            s.path for s in listed
        ]

    assert world.run(program) == (b"new", [under(world, "a.txt")])


def test_write_through_a_symlink_writes_its_target_and_keeps_the_link(world: World) -> None:
    world.add_file("real.txt", b"old")
    world.add_symlink("link", "real.txt")
    world.add_symlink("dangling", "made/by-write.txt")

    async def program(files: FileSystem) -> tuple[bytes, str, bytes]:
        await files.write_bytes(under(world, "link"), b"new", within=world.root)
        await files.write_bytes(under(world, "dangling"), b"created", within=world.root)
        link = await files.stat(under(world, "link"), follow_symlinks=False, within=world.root)
        created = await files.read_bytes(under(world, "made", "by-write.txt"), within=world.root)
        return (
            await files.read_bytes(under(world, "real.txt"), within=world.root),
            link.kind,
            created,
        )

    assert world.run(program) == (b"new", "symlink", b"created")


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("sub", FileErrorKind.IS_A_DIRECTORY),
        ("link-to-sub", FileErrorKind.IS_A_DIRECTORY),
        ("new/", FileErrorKind.IS_A_DIRECTORY),
        ("sub/..", FileErrorKind.IS_A_DIRECTORY),
        ("a.txt/x", FileErrorKind.NOT_A_DIRECTORY),
        ("a.txt/deeper/x", FileErrorKind.NOT_A_DIRECTORY),
    ],
)
def test_writing_a_directory_or_below_a_file_fails(
    world: World, name: str, kind: FileErrorKind
) -> None:
    world.add_dir("sub")
    world.add_symlink("link-to-sub", "sub")
    world.add_file("a.txt", b"x")
    path = under(world, name)
    error = failure(world, lambda files: files.write_bytes(path, b"y", within=world.root))
    assert (error.kind, error.path) == (kind, path)


# list_dir ---------------------------------------------------------------------------------------


def test_list_dir_is_sorted_by_name_and_does_not_follow_symlinks(world: World) -> None:
    for name in ("b.txt", "a.txt", "C.txt"):
        world.add_file(name, name.encode())
    world.add_dir("dir")
    world.add_file("dir/inner.txt", b"not listed")
    world.add_symlink("link", "dir")

    listed = world.run(lambda files: files.list_dir(world.root, within=world.root))

    assert [(s.path, s.kind, s.size) for s in listed] == [
        (under(world, "C.txt"), "file", 5),
        (under(world, "a.txt"), "file", 5),
        (under(world, "b.txt"), "file", 5),
        (under(world, "dir"), "directory", 0),
        (under(world, "link"), "symlink", 3),
    ]


def test_list_dir_follows_a_symlink_to_a_directory_but_not_a_file(world: World) -> None:
    world.add_file("dir/inner.txt", b"x")
    world.add_symlink("link", "dir")
    listed = world.run(lambda files: files.list_dir(under(world, "link"), within=world.root))
    assert [s.path for s in listed] == [under(world, "link", "inner.txt")]
    error = failure(
        world, lambda files: files.list_dir(under(world, "dir", "inner.txt"), within=world.root)
    )
    assert error.kind == FileErrorKind.NOT_A_DIRECTORY


# resolve ----------------------------------------------------------------------------------------


def test_resolve_follows_chains_of_relative_and_absolute_symlinks(world: World) -> None:
    world.add_file("dir/target.txt", b"x")
    world.add_symlink("first", "second")
    world.add_symlink("second", under(world, "third"))
    world.add_symlink("third", "dir/./target.txt")
    world.add_symlink("to-dir", "dir")

    async def program(files: FileSystem) -> list[str]:
        return [
            await files.resolve(under(world, "first")),
            await files.resolve(under(world, "to-dir", "missing", "tail")),
            await files.resolve(under(world, "to-dir", "..", "to-dir") + "/"),
            await files.resolve(world.root + "//dir/../dir/target.txt"),
            await files.resolve("/"),
        ]

    assert world.run(program) == [
        under(world, "dir", "target.txt"),
        under(world, "dir", "missing", "tail"),
        under(world, "dir"),
        under(world, "dir", "target.txt"),
        "/",
    ]


def test_a_symlink_out_of_the_workspace_resolves_to_the_outside_path(world: World) -> None:
    world.add_symlink("escape", "../outside/secret.txt")
    world.add_dir("sub")
    world.add_symlink("sub/up", "../../elsewhere")
    outside = posixpath.dirname(world.root)

    async def program(files: FileSystem) -> list[str]:
        return [
            await files.resolve(under(world, "escape")),
            await files.resolve(under(world, "sub", "up", "x")),
        ]

    assert world.run(program) == [
        posixpath.join(outside, "outside", "secret.txt"),
        posixpath.join(outside, "elsewhere", "x"),
    ]


@pytest.mark.parametrize("operation", ["stat", "read", "list", "resolve", "write"])
@pytest.mark.parametrize("name", ["ping", "self", "ping/below"])
def test_a_symlink_loop_is_an_error_not_a_hang(world: World, operation: str, name: str) -> None:
    world.add_symlink("ping", "pong")
    world.add_symlink("pong", "./ping")
    world.add_symlink("self", "./self")
    path = under(world, name)
    error = failure(world, lambda files: _operate(files, operation, path, world.root))
    assert (error.kind, error.path) == (FileErrorKind.LOOP, path)


def test_lstat_of_a_looping_symlink_sees_the_symlink(world: World) -> None:
    world.add_symlink("self", "self")
    found = world.run(
        lambda files: files.stat(under(world, "self"), follow_symlinks=False, within=world.root)
    )
    assert found.kind == "symlink"


# invalid paths ----------------------------------------------------------------------------------


@pytest.mark.parametrize("operation", ["stat", "lstat", "read", "list", "resolve", "write"])
@pytest.mark.parametrize("path", ["", "relative.txt", "./a", "../ws/a", "/ws/a\0b"])
def test_a_relative_or_nul_path_is_invalid(world: World, operation: str, path: str) -> None:
    error = failure(world, lambda files: _operate(files, operation, path, world.root))
    assert (error.kind, error.path) == (FileErrorKind.INVALID_PATH, path)


async def _operate(files: FileSystem, operation: str, path: str, within: str) -> object:
    """One operation by name, for tests that check each operation fails the same way."""
    match operation:
        case "stat":
            return await files.stat(path, within=within)
        case "lstat":
            return await files.stat(path, follow_symlinks=False, within=within)
        case "read":
            return await files.read_bytes(path, within=within)
        case "list":
            return await files.list_dir(path, within=within)
        case "resolve":
            return await files.resolve(path)
        case "write":
            await files.write_bytes(path, b"data", within=within)
            return None
    raise AssertionError(operation)


# what only one implementation can show ---------------------------------------------------------


def test_local_write_keeps_the_existing_file_mode(tmp_path: Path) -> None:
    world = LocalWorld(tmp_path, "sync")
    world.add_file("script.sh", b"#!/bin/sh\n")
    path = under(world, "script.sh")
    os.chmod(path, 0o751)
    world.run(lambda files: files.write_bytes(path, b"#!/bin/sh\necho hi\n", within=world.root))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert Path(path).read_bytes() == b"#!/bin/sh\necho hi\n"


def test_local_write_gives_a_new_file_the_umask_mode(tmp_path: Path) -> None:
    world = LocalWorld(tmp_path, "sync")
    path = under(world, "new.txt")
    previous = os.umask(0o027)
    try:
        world.run(lambda files: files.write_bytes(path, b"x", within=world.root))
    finally:
        os.umask(previous)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        (errno.ENOENT, FileErrorKind.NOT_FOUND),
        (errno.ENOTDIR, FileErrorKind.NOT_A_DIRECTORY),
        (errno.EISDIR, FileErrorKind.IS_A_DIRECTORY),
        (errno.EACCES, FileErrorKind.PERMISSION),
        (errno.EPERM, FileErrorKind.PERMISSION),
        (errno.EXDEV, FileErrorKind.OUTSIDE),
        (errno.ELOOP, FileErrorKind.LOOP),
        (errno.ENAMETOOLONG, FileErrorKind.INVALID_PATH),
        (errno.EIO, FileErrorKind.OTHER),
    ],
)
def test_local_errors_are_mapped_by_errno(
    monkeypatch: pytest.MonkeyPatch, code: int, kind: FileErrorKind
) -> None:
    def failing_open(*args: object, **kwargs: object) -> int:
        raise OSError(code, os.strerror(code), "x")

    monkeypatch.setattr(local_files, "open_beneath", failing_open)
    with pytest.raises(FileError) as caught:
        run_sync(_description(lambda files: files.stat("/somewhere/x", within="/")))
    error = caught.value
    assert (error.kind, error.path) == (kind, "/somewhere/x")


def test_each_runtime_has_its_file_system_by_default_or_the_one_given() -> None:
    memory = MemoryFileSystem()
    assert isinstance(SyncRuntime().files, LocalFileSystem)
    assert isinstance(AnyioRuntime().files, AnyioFileSystem)
    assert SyncRuntime(files=memory).files is memory
    assert AnyioRuntime(files=memory).files is memory


def test_memory_helpers_and_deterministic_mtimes_from_the_virtual_clock() -> None:
    files = MemoryFileSystem.from_files({"/ws/a.txt": "é", "/ws/b/c.bin": b"\0"})
    files.add_symlink("/ws/link", "a.txt")
    assert files.snapshot() == {"/ws/a.txt": "é".encode(), "/ws/b/c.bin": b"\0"}

    async def program(runtime: Runtime) -> list[int]:
        await runtime.sleep(2.5)
        await runtime.files.write_bytes("/ws/new.txt", b"x", within="/")
        return [(await runtime.files.stat("/ws/new.txt", within="/")).mtime_ns]

    interpreter = DeterministicInterpreter(seed=1)
    assert interpreter.run(Description(program)) == [2_500_000_000]
    assert interpreter.run(Description(program)) == [2_500_000_000]  # each run starts afresh
    assert [e.detail for e in interpreter.trace if e.kind == "files"] == [
        "write /ws/new.txt (1 bytes)",
        "stat /ws/new.txt",
    ]


def test_file_operations_are_traced_with_their_errors() -> None:
    interpreter = DeterministicInterpreter(files=MemoryFileSystem.from_files({"/a": "x"}))

    async def program(runtime: Runtime) -> None:
        await runtime.files.read_bytes("/a", within="/", limit=1)
        await runtime.files.list_dir("/", within="/")
        with pytest.raises(FileError):
            await runtime.files.stat("/missing", follow_symlinks=False, within="/")

    interpreter.run(Description(program))
    assert [e.detail for e in interpreter.trace if e.kind == "files"] == [
        "read /a (limit 1)",
        "list /",
        "lstat /missing: not-found",
    ]


def test_each_file_operation_is_a_reschedule_point_the_seed_orders() -> None:
    async def program(runtime: Runtime) -> bytes:
        async def writer(content: bytes) -> None:
            await runtime.files.write_bytes("/ws/shared.txt", content, within="/")

        await runtime.gather([lambda: writer(b"first"), lambda: writer(b"second")], 2)
        return await runtime.files.read_bytes("/ws/shared.txt", within="/")

    def last_writer(seed: int) -> bytes:
        return DeterministicInterpreter(seed=seed).run(Description(program))

    assert {last_writer(seed) for seed in range(20)} == {b"first", b"second"}
    assert [last_writer(seed) for seed in range(20)] == [last_writer(seed) for seed in range(20)]


# local and memory agree on random operation sequences ------------------------------------------

NAMES = st.sampled_from(["a", "b", "link", "loop"])
RELATIVE = st.lists(NAMES, min_size=1, max_size=3).map("/".join)
OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("write"), RELATIVE, st.binary(max_size=8)),
        st.tuples(st.just("read"), RELATIVE, st.none() | st.integers(0, 9)),
        st.tuples(st.just("list"), st.just("") | RELATIVE, st.none()),
        st.tuples(st.just("stat"), RELATIVE, st.booleans()),
        st.tuples(st.just("resolve"), RELATIVE, st.none()),
    ),
    max_size=12,
)
Operation = tuple[str, str, bytes | int | bool | None]


async def _outcomes(files: FileSystem, root: str, operations: list[Operation]) -> list[object]:
    """What each operation gave, paths made relative to `root`, mtimes left out."""
    outcomes: list[object] = []
    for name, relative, argument in operations:
        path = posixpath.join(root, relative) if relative else root
        try:
            match name, argument:
                case "write", bytes():
                    await files.write_bytes(path, argument, within=root)
                    outcomes.append("written")
                case "read", None | int():
                    outcomes.append(await files.read_bytes(path, within=root, limit=argument))
                case "list", _:
                    listed = await files.list_dir(path, within=root)
                    outcomes.append([(s.path[len(root) :], s.kind, s.size) for s in listed])
                case "stat", bool():
                    found = await files.stat(path, follow_symlinks=argument, within=root)
                    outcomes.append((found.kind, found.size))
                case "resolve", _:
                    outcomes.append((await files.resolve(path)).removeprefix(root))
        except FileError as error:
            outcomes.append((error.kind, error.path.removeprefix(root)))
    return outcomes


def _on(files: FileSystem, root: str, operations: list[Operation]) -> list[object]:
    async def program(runtime: Runtime) -> list[object]:
        return await _outcomes(runtime.files, root, operations)

    return run_sync(Description(program), SyncRuntime(files=files))


def _workspace_links(add_symlink: Callable[[str, str], None]) -> None:
    """The links every random sequence starts with: one to `a` (maybe dangling), one a loop."""
    add_symlink("link", "a")
    add_symlink("loop", "loop")


@settings(max_examples=50)
@given(OPERATIONS)
def test_memory_and_local_file_systems_agree_on_random_operations(
    operations: list[Operation],
) -> None:
    memory = MemoryWorld()
    _workspace_links(memory.add_symlink)
    with tempfile.TemporaryDirectory() as base:
        local = LocalWorld(Path(base), "sync")
        _workspace_links(local.add_symlink)
        expected = _on(LocalFileSystem(), local.root, operations)
    assert _on(memory.files, memory.root, operations) == expected
