"""The Landlock grants that carve hidden and read-only paths out of a tree (`covering`)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from toolfx.interpreters._os._landlock import covering

NAMES = st.sampled_from(["a", "b", "c"])
TREES = st.lists(st.lists(NAMES, min_size=1, max_size=3), max_size=8)


def below(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


@settings(max_examples=60, deadline=None)
@given(TREES, st.lists(st.lists(NAMES, min_size=1, max_size=3), max_size=3))
def test_the_grants_cover_every_path_but_the_excluded_ones(
    files: list[list[str]], excluded: list[list[str]]
) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = os.path.realpath(temp)
        for parts in files:
            Path(root, *parts).mkdir(parents=True, exist_ok=True)
        out = tuple(os.path.join(root, *parts) for parts in excluded)
        grants = covering(root, out)
        every = [os.path.join(folder, name) for folder, names, _ in os.walk(root) for name in names]
        for path in every:
            hidden = any(below(path, gone) for gone in out)
            granted = any(below(path, grant) for grant in grants)
            assert granted != hidden or (not hidden and any(below(g, path) for g in out)), path
        assert not any(below(grant, gone) or below(gone, grant) for grant in grants for gone in out)


def test_a_symlink_beside_a_hidden_folder_is_not_granted(tmp_path: Path) -> None:
    root = os.path.realpath(tmp_path)
    Path(root, "home", ".ssh").mkdir(parents=True)
    Path(root, "home", "docs").mkdir()
    Path(root, "home", "link").symlink_to(Path(root, "home", ".ssh"))
    assert covering(root, (f"{root}/home/.ssh",)) == [f"{root}/home/docs"]
