"""The search leaves glob and grep: through the real pipeline on an in-memory workspace under the
deterministic interpreter, and on a real folder under asyncio and trio; the glob translator."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.leaves_support import (
    ROOT,
    STATE,
    Backend,
    LeafSession,
    card_of,
    catalog_of,
    failure,
    run_real,
    text_of,
    value_of,
)
from toolfx.core.pipeline import ToolCall, execute
from toolfx.core.runtime import CancelSignal, RejectedWithFeedback
from toolfx.core.tools import ErrorCode, GenericCallCard, SearchMatch, SearchResultCard
from toolfx.interpreters.testing import CancelAt, DeterministicInterpreter
from toolfx.leaves._globs import glob_regex
from toolfx.leaves._text_files import LINE_CUT_MARK
from toolfx.leaves.grep import MAX_FILE_BYTES
from toolfx.leaves.workspace import Workspace, WorkspaceLimits

TREE = {
    f"{ROOT}/a.py": "import os\n",
    f"{ROOT}/src/b.py": "def main():\n    return 1\n",
    f"{ROOT}/src/deep/c.py": "def helper():\n    pass\n",
    f"{ROOT}/src/x.ts": "export function main() {}\n",
    f"{ROOT}/.git/hooks/d.py": "def hook(): pass\n",
    f"{STATE}/outputs/e.py": "def saved(): pass\n",
}
"""Inserted in order: each file is newer than the ones before it."""


# the glob translator ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "matched"),
    [
        ("**/*.py", "a.py", True),
        ("**/*.py", "src/deep/c.py", True),
        ("*.py", "src/b.py", False),
        ("src/*.ts", "src/x.ts", True),
        ("src/*.ts", "src/deep/x.ts", False),
        ("src/**", "src/deep/c.py", True),
        ("src/**/c.py", "src/c.py", True),
        ("?.py", "a.py", True),
        ("?.py", "ab.py", False),
        ("[ab].py", "b.py", True),
        ("[!ab].py", "c.py", True),
        ("[!ab].py", "a.py", False),
        ("*.{ts,tsx}", "x.tsx", True),
        ("*.{ts,tsx}", "x.js", False),
        ("a[b", "a[b", True),
        ("x**y", "x/y", False),
    ],
)
def test_glob_patterns(pattern: str, path: str, matched: bool) -> None:
    assert glob_regex(pattern).matches(path) is matched


# glob -------------------------------------------------------------------------------------------


def test_glob_lists_matching_files_newest_first_skipping_git_and_state() -> None:
    session = LeafSession(TREE)
    result = session.call("glob", pattern="**/*.py")
    assert text_of(result) == "src/deep/c.py\nsrc/b.py\na.py"
    assert card_of(result) == SearchResultCard(
        shape="paths",
        truncated=False,
        total=3,
        paths=("src/deep/c.py", "src/b.py", "a.py"),
        title="Glob **/*.py",
    )
    assert session.asked == []


def test_glob_matches_below_the_path_and_shows_paths_from_the_root() -> None:
    session = LeafSession(TREE)
    assert text_of(session.call("glob", pattern="*.py")) == "a.py"
    assert text_of(session.call("glob", pattern="*.py", path="src")) == "src/b.py"
    assert text_of(session.call("glob", pattern="src/*.ts")) == "src/x.ts"
    assert text_of(session.call("glob", pattern="*.rs")) == "No files match *.rs."


def test_glob_shows_100_paths_and_counts_them_all() -> None:
    session = LeafSession({f"{ROOT}/f{index:03}.txt": "" for index in range(150)})
    result = session.call("glob", pattern="*.txt")
    lines = text_of(result).splitlines()
    assert lines[:2] == ["f149.txt", "f148.txt"]
    assert lines[99] == "f050.txt"
    assert lines[-1] == (
        "(Showing the 100 most recently modified of 150 files; "
        "narrow the pattern or the path to see the rest.)"
    )
    card = card_of(result)
    assert isinstance(card, SearchResultCard)
    assert (card.truncated, card.total, len(card.paths)) == (True, 150, 100)
    assert value_of(result) == {
        "paths": [f"f{index:03}.txt" for index in range(149, 49, -1)],
        "total": 150,
        "truncated": True,
        "stopped_early": None,
        "withheld": 0,
    }


def test_glob_outside_the_workspace_asks_first() -> None:
    files = {**TREE, "/other/x.py": "x = 1\n"}
    allowed = LeafSession(files, replies=["allowed-once"])
    assert text_of(allowed.call("glob", pattern="*.py", path="/other")) == "/other/x.py"
    assert allowed.asks() == [("external_directory", ("/other",))]

    refused = failure(LeafSession(files, replies=["rejected"]).call("glob", pattern="*", path="/"))
    assert refused.error.code == ErrorCode.DENIED

    corrected = LeafSession(files, replies=[RejectedWithFeedback("stay in the workspace")])
    told = failure(corrected.call("glob", pattern="*", path="/other"))
    assert told.error.code == ErrorCode.DENIED
    assert "stay in the workspace" in told.error.message


def test_glob_follows_no_symlink_out_of_the_workspace() -> None:
    session = LeafSession({**TREE, "/other/secret.py": "key = 1\n"})
    session.fs.add_symlink(f"{ROOT}/out.py", "/other/secret.py")
    session.fs.add_symlink(f"{ROOT}/outdir", "/other")
    session.fs.add_symlink(f"{ROOT}/alias.py", f"{ROOT}/a.py")
    session.fs.add_symlink(f"{ROOT}/srcdir", f"{ROOT}/src")
    paths = text_of(session.call("glob", pattern="**/*.py")).splitlines()
    assert sorted(paths) == ["a.py", "alias.py", "src/b.py", "src/deep/c.py"]
    assert session.asked == []


@pytest.mark.parametrize(
    ("pattern", "complaint"),
    [("/ws/*.py", "relative glob"), ("", "relative glob"), ("[z-a]", "reversed range 'z-a'")],
)
def test_glob_refuses_a_bad_pattern(pattern: str, complaint: str) -> None:
    result = failure(LeafSession(TREE).call("glob", pattern=pattern))
    assert result.error.code == ErrorCode.INVALID_ARGS
    assert complaint in result.error.message


def test_glob_of_a_missing_folder_fails() -> None:
    result = failure(LeafSession(TREE).call("glob", pattern="*", path="nowhere"))
    assert result.error.code == ErrorCode.TOOL_ERROR
    assert result.error.message == "nowhere does not exist"


def test_the_search_leaves_are_parallel_safe_with_a_search_card_while_pending() -> None:
    catalog = LeafSession().catalog
    assert catalog.execution_mode("glob", {"pattern": "*"}) == "parallel"
    assert catalog.execution_mode("grep", {"regex": "x"}) == "parallel"
    glob, grep = catalog.get("glob"), catalog.get("grep")
    assert glob is not None
    assert grep is not None
    assert glob.present_call is not None
    assert grep.present_call is not None
    assert glob.present_call({"pattern": "*.py", "path": "src"}) == GenericCallCard(
        title="Glob *.py in src", kind="search"
    )
    assert grep.present_call({"regex": "def"}) == GenericCallCard(title="Grep def", kind="search")


# grep -------------------------------------------------------------------------------------------


def test_grep_groups_matching_lines_by_file_newest_first() -> None:
    session = LeafSession(TREE)
    result = session.call("grep", regex=r"def \w+")
    assert text_of(result) == (
        "Found 2 matching lines in 2 files.\n\n"
        "src/deep/c.py:\n  1: def helper():\n\n"
        "src/b.py:\n  1: def main():"
    )
    assert card_of(result) == SearchResultCard(
        shape="matches",
        truncated=False,
        total=2,
        matches=(
            SearchMatch("src/deep/c.py", 1, "def helper():"),
            SearchMatch("src/b.py", 1, "def main():"),
        ),
        title="Grep def \\w+",
    )


def test_grep_shows_100_matches_and_counts_them_all() -> None:
    files = {f"{ROOT}/m{index}.txt": "hit\nmiss\n" * 60 for index in range(3)}
    result = LeafSession(files).call("grep", regex="^hit$")
    value = value_of(result)
    assert value["total"] == 180
    assert value["files"] == 3
    assert value["truncated"] is True
    assert len(value["matches"]) == 100
    assert [match["line"] for match in value["matches"][:2]] == [1, 3]
    assert value["matches"][0]["path"] == "m2.txt"
    assert text_of(result).startswith("Found 180 matching lines in 3 files.")
    assert text_of(result).endswith(
        "(Showing the first 100 of 180 matching lines; "
        "narrow the regex, the path or include to see the rest.)"
    )
    card = card_of(result)
    assert isinstance(card, SearchResultCard)
    assert (card.truncated, card.total, len(card.matches)) == (True, 180, 100)


def test_grep_shows_no_more_than_the_byte_limit() -> None:
    files = {f"{ROOT}/wide.txt": ("x" * 90 + "\n") * 50}
    limits = WorkspaceLimits(max_bytes=1000)
    value = value_of(LeafSession(files, limits=limits).call("grep", regex="x"))
    shown = len(value["matches"])
    assert 0 < shown < 50
    assert (value["total"], value["truncated"]) == (50, True)


def test_grep_include_filters_by_name_or_by_path() -> None:
    session = LeafSession(TREE)
    by_name = value_of(session.call("grep", regex="main", include="*.py"))
    assert [m["path"] for m in by_name["matches"]] == ["src/b.py"]
    by_path = value_of(session.call("grep", regex="def", include="src/*.py"))
    assert [m["path"] for m in by_path["matches"]] == ["src/b.py"]
    below = value_of(session.call("grep", regex="def", path="src", include="deep/*"))
    assert [m["path"] for m in below["matches"]] == ["src/deep/c.py"]


@pytest.mark.parametrize(
    ("arguments", "complaint"),
    [
        ({"regex": "(unclosed"}, "is not a valid RE2 regular expression: missing )"),
        ({"regex": "x", "include": "[z-a]"}, "include '[z-a]' has the reversed range"),
    ],
)
def test_grep_refuses_an_invalid_regex_or_include(
    arguments: dict[str, str], complaint: str
) -> None:
    session = LeafSession(TREE)
    result = failure(session.call("grep", **arguments))
    assert result.error.code == ErrorCode.INVALID_ARGS
    assert complaint in result.error.message


def test_grep_skips_binary_and_huge_files_and_cuts_long_lines() -> None:
    files: dict[str, str | bytes] = {
        f"{ROOT}/binary.dat": b"needle\x00\x01",
        f"{ROOT}/latin1.txt": "needle caf\xe9".encode("latin-1"),
        f"{ROOT}/huge.txt": "needle\n" + "x" * MAX_FILE_BYTES,
        f"{ROOT}/long.txt": "needle" + "y" * 5000,
    }
    result = LeafSession(files).call("grep", regex="needle")
    value = value_of(result)
    (match,) = value["matches"]
    assert match["path"] == "long.txt"
    assert match["text"] == ("needle" + "y" * 5000)[:2000] + LINE_CUT_MARK
    assert value["skipped_large"] == 1
    assert text_of(result).endswith("(1 file over 5 MB not searched.)")


def test_grep_reads_a_saved_output_when_pointed_at_it_without_asking() -> None:
    session = LeafSession(TREE)
    assert value_of(session.call("grep", regex="saved"))["total"] == 0
    found = value_of(session.call("grep", regex="saved", path=f"{STATE}/outputs/e.py"))
    assert [m["path"] for m in found["matches"]] == [f"{STATE}/outputs/e.py"]
    assert session.asked == []


def test_a_shipped_toolfx_folder_is_an_ordinary_folder() -> None:
    session = LeafSession({f"{ROOT}/.toolfx/outputs/planted.py": "x = 1\n"})
    assert text_of(session.call("glob", pattern="**/*.py")) == ".toolfx/outputs/planted.py"


def test_grep_outside_the_workspace_asks_first() -> None:
    session = LeafSession({**TREE, "/other/x.py": "def outside(): pass\n"}, replies=["rejected"])
    result = failure(session.call("grep", regex="def", path="/other"))
    assert result.error.code == ErrorCode.DENIED
    assert session.asks() == [("external_directory", ("/other",))]


def test_grep_stops_between_files_when_cancelled() -> None:
    session = LeafSession({f"{ROOT}/f{index:02}.txt": "line\n" for index in range(60)})
    signal = CancelSignal()
    interpreter = DeterministicInterpreter(files=session.fs, faults=[CancelAt(20, signal)])
    call = ToolCall("call-1", "grep", {"regex": "line"}, signal)
    result = failure(interpreter.run(execute(session.catalog, call)))
    assert result.error.code == ErrorCode.ABORTED
    reads = [event for event in interpreter.trace if event.detail.startswith("read /ws/")]
    assert 0 < len(reads) < 20


# on a real folder -------------------------------------------------------------------------------


@pytest.fixture(params=["asyncio", "trio"])
def backend(request: pytest.FixtureRequest) -> Backend:
    """Every real-folder test runs under anyio on both backends."""
    name: Backend = request.param
    return name


@pytest.fixture
def real_tree(tmp_path: Path) -> Path:
    """A workspace folder with dated files, a `.git` folder and symlinks out and in."""
    root = Path(os.path.realpath(tmp_path)) / "ws"
    outside = root.parent / "outside"
    (root / "pkg").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.py").write_text("TOKEN = 'needle'\n")
    (root / ".git").mkdir()
    (root / ".git" / "config.py").write_text("needle = 1\n")
    for age, name in enumerate(["pkg/new.py", "old.py", "notes.md"]):
        path = root / name
        path.write_text(f"needle in {name}\n")
        os.utime(path, ns=(10**18 - age * 10**9, 10**18 - age * 10**9))
    (root / "link_out").symlink_to(outside)
    (root / "secret_link.py").symlink_to(outside / "secret.py")
    return root


def test_glob_and_grep_on_a_real_folder(real_tree: Path, backend: Backend) -> None:
    catalog = catalog_of(Workspace(str(real_tree)))
    glob = ToolCall("g1", "glob", {"pattern": "**/*.py"}, CancelSignal())
    assert text_of(run_real(catalog, glob, backend)) == "pkg/new.py\nold.py"
    grep = ToolCall("g2", "grep", {"regex": "needle"}, CancelSignal())
    grepped = run_real(catalog, grep, backend)
    assert [m["path"] for m in value_of(grepped)["matches"]] == [
        "pkg/new.py",
        "old.py",
        "notes.md",
    ]


# linear-time matching ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "matched"),
    [
        ("a[!b]c", "a/c", False),
        ("a[.-0]c", "a/c", False),  # a range spanning `/` still stays in one folder
        ("a[.-0]c", "a0c", True),
        ("[/]", "/", False),
        ("{a,{b,c}}.txt", "c.txt", True),
        ("a{b}", "a{b}", True),  # one option alone is literal
        ("*.txt", "caf\udce9.txt", True),  # a name that is not UTF-8
        ("(x)+$.txt", "(x)+$.txt", True),  # regex syntax is literal in a glob
    ],
)
def test_glob_classes_braces_and_odd_names(pattern: str, path: str, matched: bool) -> None:
    assert glob_regex(pattern).matches(path) is matched


def test_glob_translation_is_linear_in_unclosed_brackets() -> None:
    pattern = "[{" * 400
    assert glob_regex(pattern).matches(pattern)


def test_grep_numbers_lines_as_read_does_across_line_breaks() -> None:
    files = {f"{ROOT}/mixed.txt": "one\r\ntwo\x0cthree\rfour\u2028five\nsix"}
    value = value_of(LeafSession(files).call("grep", regex="^(t|f|s)"))
    assert [(m["line"], m["text"]) for m in value["matches"]] == [
        (2, "two"),
        (3, "three"),
        (4, "four"),
        (5, "five"),
        (6, "six"),
    ]


@given(
    regex=st.sampled_from(["a", "^a", "b$", "^$", "a*", "ab|ba", "^a+b?$", r"\bb", "a.b", r"\s"]),
    text=st.text(alphabet="ab \n\r", max_size=40),
)
def test_grep_finds_the_lines_a_per_line_search_finds(regex: str, text: str) -> None:
    session = LeafSession({f"{ROOT}/t.txt": text})
    value = value_of(session.call("grep", regex=regex))
    expected = [n for n, line in enumerate(text.splitlines(), 1) if re.search(regex, line)]
    assert [m["line"] for m in value["matches"]] == expected[:100]
    assert value["total"] == len(expected)
