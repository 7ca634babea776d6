"""The README's picture of the demo (docs/demo.svg) is what the demo shows now: `make screenshot`
regenerates it."""

from __future__ import annotations

from tests.screenshot import PICTURE, SHOWN_WORKSPACE, render


def test_the_readme_picture_of_the_demo_is_current() -> None:
    rendered = render()
    assert PICTURE.read_text("utf-8") == rendered, "docs/demo.svg is stale: run make screenshot"


def test_the_picture_shows_the_demo_without_what_changes_from_run_to_run() -> None:
    rendered = render()
    assert render() == rendered  # the same on every run
    assert SHOWN_WORKSPACE in rendered
    assert "toolfx-demo-" not in rendered  # no temporary folder's name
    assert "&#160;·&#160;18&#160;lines" in rendered  # the compact line of the first read
