"""`visible`: nothing a terminal obeys (or that hides or reorders text) survives, ordinary text
is left as it is, and the escapes are honest: the text can be read back exactly."""

from __future__ import annotations

import json
import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolfx.interpreters.cli._visible import visible, visible_json

HIDDEN_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}
JOINERS = {"\u200c", "\u200d"}

# Texts dense in what makes escaping hard: backslashes, escape-like letters and hex digits, and
# the characters that must be escaped, mixed with any text at all.
tricky = st.text(
    alphabet=st.sampled_from("\\\\xuU0a7F1b9\x1b\x9b\x00\x7f\r\n\t\u202e\u200b\udc80é")
)
texts = st.one_of(tricky, st.text(), st.lists(st.one_of(tricky, st.text())).map("".join))

_ESCAPE = re.compile(r"(\\+)(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})?")


def read_back(shown: str) -> str:
    """The text `visible` was given: an odd backslash run before an escape ends in the escape."""

    def decode(match: re.Match[str]) -> str:
        run, escape = match.group(1), match.group(2)
        if escape is None:
            return run
        half = run[: len(run) // 2]
        return half + (escape if len(run) % 2 == 0 else chr(int(escape[1:], 16)))

    return _ESCAPE.sub(decode, shown)


def shows_nothing_hidden(shown: str, kept: str) -> bool:
    return all(
        char in kept or unicodedata.category(char) not in HIDDEN_CATEGORIES or char in JOINERS
        for char in shown
    )


@given(texts)
def test_nothing_hidden_is_left_but_tabs_and_newlines(text: str) -> None:
    assert shows_nothing_hidden(visible(text), "\t\n")
    assert shows_nothing_hidden(visible(text, lines=False), "\t")


@given(texts, st.booleans())
def test_the_text_can_be_read_back_exactly(text: str, lines: bool) -> None:
    assert read_back(visible(text, lines=lines)) == text


@given(texts, texts)
def test_texts_that_differ_look_different(first: str, second: str) -> None:
    if first != second:
        assert visible(first) != visible(second)
        assert visible(first, lines=False) != visible(second, lines=False)


@given(
    st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="\\"))
)
def test_printable_ascii_without_backslashes_is_unchanged(text: str) -> None:
    assert visible(text) == text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2J\x1b[H", r"\x1b[2J\x1b[H"),
        ("\x1b]0;pwned\x07", r"\x1b]0;pwned\x07"),
        ("\x9b31m", r"\x9b31m"),
        ("safe\rEVIL", r"safe\x0dEVIL"),
        ("abc\b\b\bxyz\x7f", r"abc\x08\x08\x08xyz\x7f"),
        ("\u202etxt.exe", r"\u202etxt.exe"),
        ("\u2066a\u2069\u200b\ufeff", r"\u2066a\u2069\u200b\ufeff"),
        ("tag\U000e0041", r"tag\U000e0041"),
        ("bad\udcffname", r"bad\udcffname"),
        ("one\ntwo\tthree", "one\ntwo\tthree"),
        ("a\u2028b", r"a\u2028b"),
        ('print("\\x1b[0m")', 'print("\\\\x1b[0m")'),  # the text `\x1b` is not the escape
        ("\\\x1b", "\\\\\\x1b"),  # a backslash, then the escape character
        ("C:\\Users\\xyz \\d+ \\n", "C:\\Users\\xyz \\d+ \\n"),  # no escape read: unchanged
        (
            "é ü 中文 👨\u200d👩\u200d👧 نیم\u200cفاصله",
            "é ü 中文 👨\u200d👩\u200d👧 نیم\u200cفاصله",
        ),
    ],
)
def test_examples(text: str, shown: str) -> None:
    assert visible(text) == shown


def test_a_single_line_escapes_its_newlines() -> None:
    assert visible("a.txt\n+++ b/fake", lines=False) == r"a.txt\x0a+++ b/fake"


@given(
    st.recursive(
        st.text() | st.integers() | st.none(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    )
)
def test_json_stays_the_same_json_and_shows_nothing_hidden(value: object) -> None:
    shown = visible_json(json.dumps(value, ensure_ascii=False, indent=2))
    assert json.loads(shown) == value
    assert shows_nothing_hidden(shown, "\n")
