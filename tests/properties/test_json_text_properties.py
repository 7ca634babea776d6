"""The fast parse (jiter, then a frozen copy) agrees with the exact parse (the stdlib decoder with
hooks, then the exact snapshot walk) on every text: the same value, exactly, or the same error.

Texts are generated from JSON's grammar with the edges that matter mixed in: repeated keys
(also spelled with escapes), escapes and lone surrogates, integers around the 4,300-digit bound,
floats that overflow or underflow, -0 and -0.0, NaN and the infinities, nesting around the depth
limits, whitespace, stray characters, bytes (some not UTF-8), and small limits.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.properties.test_json_properties import same_json
from toolfx.core.json import DEFAULT_LIMITS, JsonError, JsonLimits, parse_json, parse_or_error
from toolfx.core.json._text import _parse_exact

_NUMBER = r"-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,25})?([eE][+-]?[0-9]{1,4})?"
_ODD_NUMBERS = [
    "-0",
    "-0.0",
    "0.0",
    "1e400",
    "-1e400",
    "1e-400",
    "1E5",
    "5e-324",
    "2.2250738585072011e-308",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
]
_NOT_NUMBERS = ["NaN", "Infinity", "-Infinity", "01", "1.", ".5", "-", "1e", "+1"]
_ESCAPES = [
    "\\u0061",
    "\\u003a",
    "\\ud800",
    "\\udc00",
    "\\ud83d\\ude00",
    "\\ud83d",
    "\\n",
    '\\"',
    "\\\\",
    "\\/",
    "\\u0000",
    "a",
    "é",
    "😀",
    ":",
]
_BAD_ESCAPES = ["\\x", "\x01", "\\u12"]

big_integers = st.builds(
    lambda sign, digits, first: sign + first + "0" * (digits - 1),
    st.sampled_from(["", "-"]),
    st.integers(4295, 4305),
    st.sampled_from(["1", "9"]),
)
numbers = st.one_of(
    st.from_regex(_NUMBER, fullmatch=True),
    st.from_regex(_NUMBER, fullmatch=True),
    st.sampled_from(_ODD_NUMBERS),
    st.integers(0, 29).flatmap(
        lambda n: st.sampled_from(_NOT_NUMBERS) if n == 29 else st.integers().map(str)
    ),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    big_integers,
)
plain_strings = st.text(max_size=8).map(lambda s: json.dumps(s, ensure_ascii=False))
escapes = st.sampled_from(_ESCAPES) | st.sampled_from(_ESCAPES) | st.sampled_from(_BAD_ESCAPES)
escaped_strings = st.lists(escapes, max_size=4).map(lambda parts: '"' + "".join(parts) + '"')
strings = plain_strings | escaped_strings
keys = strings | st.sampled_from(['"a"', '"\\u0061"', '"b"', '"a:b"'])  # repeats are likely
scalars = numbers | strings | st.sampled_from(["true", "false", "null"])
spaces = st.sampled_from(["", " ", "\n", "\t", "\r\n  "])
not_spaces = st.sampled_from(["\x0c", "\xa0", "\u2028"])


def _containers(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    arrays = st.tuples(st.lists(children, max_size=4), spaces).map(
        lambda made: "[" + (made[1] + "," + made[1]).join(made[0]) + "]"
    )
    objects = st.tuples(st.lists(st.tuples(keys, children), max_size=4), spaces).map(
        lambda made: "{" + ",".join(f"{k}{made[1]}:{v}" for k, v in made[0]) + "}"
    )
    return arrays | objects


values = st.recursive(scalars, _containers, max_leaves=12)


@st.composite
def texts(draw: st.DrawFn) -> str:
    """A JSON text, or one close to it."""
    text = draw(values)
    depth = draw(st.sampled_from([0, 0, 0, 1, 126, 127, 128, 129, 200, 201, 1200]))
    text = "[" * depth + text + "]" * depth
    around = not_spaces if draw(st.integers(0, 19)) == 19 else spaces
    text = draw(around) + text + draw(spaces)
    if draw(st.integers(0, 14)) == 14:  # a stray character somewhere
        at = draw(st.integers(0, len(text)))
        text = (
            text[:at] + draw(st.sampled_from([",", "]", "}", '"', "x", "\\", "\ud800"])) + text[at:]
        )
    return text


limits = st.sampled_from(
    [DEFAULT_LIMITS, JsonLimits(max_depth=3), JsonLimits(max_size=24), JsonLimits(3, 40)]
)


def exact(text: str | bytes, bounds: JsonLimits) -> object:
    """What the exact path alone gives for `text` (the decoding as `parse_json` does it)."""
    if len(text) > bounds.max_size:
        return parse_or_error(text, bounds)  # the length check: one line, shared
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            return parse_or_error(text, bounds)  # the UTF-8 check: shared as well
    return _parse_exact(text, bounds)


def assert_same(fast: object, slow: object) -> None:
    if type(slow) is JsonError:
        assert fast == slow
    else:
        assert type(fast) is not JsonError, fast
        assert same_json(fast, slow), (fast, slow)


@settings(max_examples=1500)
@given(texts(), limits)
@example('{"a": 1, "\\u0061": 2}', DEFAULT_LIMITS)
@example('{"a": {"b": [1, {"c": 1e400}]}}', DEFAULT_LIMITS)
@example("1" + "0" * 4300, DEFAULT_LIMITS)
@example("-" + "9" * 4300, DEFAULT_LIMITS)
@example('["\\ud800"]', DEFAULT_LIMITS)
@example("[" * 129 + "]" * 129, DEFAULT_LIMITS)
@example("[" * 128 + "]" * 128, DEFAULT_LIMITS)
@example('{"a": -0.0, "b": -0}', DEFAULT_LIMITS)
def test_fast_parse_is_the_exact_parse(text: str, bounds: JsonLimits) -> None:
    assert_same(parse_or_error(text, bounds), exact(text, bounds))


@settings(max_examples=400)
@given(texts(), limits, st.sampled_from([b"", b"\xff", b"\xed\xa0\x80", b"\xc3"]))
def test_fast_parse_of_bytes_is_the_exact_parse(text: str, bounds: JsonLimits, junk: bytes) -> None:
    data = text.encode("utf-8", "surrogatepass")
    at = len(data) // 2
    data = data[:at] + junk + data[at:]
    assert_same(parse_or_error(data, bounds), exact(data, bounds))


@given(texts(), limits)
def test_parse_json_is_parse_or_error_as_a_result(text: str, bounds: JsonLimits) -> None:
    outcome: Any = parse_or_error(text, bounds)
    result = parse_json(text, bounds)
    if type(outcome) is JsonError:
        assert result.failure() == outcome
    else:
        assert same_json(result.unwrap(), outcome)
