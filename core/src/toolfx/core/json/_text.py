"""Parsing JSON text into deep-frozen JSON, with duplicate keys and non-finite numbers refused."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

import jiter
from returns.result import Failure, Result, Success

from toolfx.core.json._model import (
    DEFAULT_LIMITS,
    FrozenJson,
    JsonError,
    JsonErrorKind,
    JsonLimits,
    json_pointer,
)
from toolfx.core.json._snapshot import (
    LONG_TEXT_LEAVES,
    PARSED_LEAVES,
    SHORT_INT_DIGITS,
    DuplicateKeyMarker,
    TextNumberRejected,
    Unfit,
    check_scalar,
    frozen_array,
    frozen_object,
    snapshot_or_error,
)

__all__ = ["parse_json", "parse_or_error"]


def _parse_constant(text: str) -> TextNumberRejected:
    return TextNumberRejected(text)


def _parse_float(text: str) -> float | TextNumberRejected:
    number = float(text)
    return number if math.isfinite(number) else TextNumberRejected(text)


def _object_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any] | DuplicateKeyMarker:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return DuplicateKeyMarker(key)
        seen.add(key)
    raise AssertionError("unreachable: a shorter dict implies a repeated key")


_DECODER: Final = json.JSONDecoder(
    object_pairs_hook=_object_pairs,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
)
_TEXT_TOKEN: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[][{},]', re.DOTALL)
_jiter_parse: Final = jiter.from_json
_TEXT_TYPES: Final = (str, bytes)


def parse_json(
    text: str | bytes, limits: JsonLimits = DEFAULT_LIMITS
) -> Result[FrozenJson, JsonError]:
    """Parse JSON text into deep-frozen JSON, or say what is wrong and where."""
    outcome = parse_or_error(text, limits)
    return Failure(outcome) if type(outcome) is JsonError else Success(outcome)


def parse_or_error(text: str | bytes, limits: JsonLimits = DEFAULT_LIMITS) -> Any:
    """`parse_json` as a plain value, for hot paths: the frozen JSON, or a `JsonError`.

    Fast path: jiter, then a frozen copy (nested at most `limits.max_depth` deep, floats
    finite). jiter refuses repeated keys, lone surrogates, invalid UTF-8 and integers of more
    than 4,300 digits itself (tests/unit/test_call_from_json.py holds it to that), reads NaN
    and the infinities as floats, and a value is never larger than its text: only depth and
    finite floats (NaN and the infinities among them) are left to check, and
    integers of more than 640 digits, which the stdlib path refuses when the application
    lowered Python's digit limit (looked at only when the text is long enough to hold one).
    Whatever jiter or the copy does not accept takes the exact path, which names what is wrong
    and where, so the two accept the same texts and give the same values and errors
    (tests/properties/test_json_text_properties.py).
    """
    if not isinstance(text, _TEXT_TYPES):  # a caller's mistake, not the model's text
        raise TypeError(f"JSON text is str or bytes, not {type(text).__name__}")
    if len(text) > limits.max_size:
        return JsonError(
            JsonErrorKind.TOO_LARGE,
            "",
            f"the text is {len(text)} long, over the size budget of {limits.max_size} bytes",
        )
    try:
        data = text if isinstance(text, bytes) else text.encode()
        # an object repeating a key is refused; NaN and the infinities come as floats (checked)
        parsed = _jiter_parse(data, catch_duplicate_keys=True)
        leaves = PARSED_LEAVES if len(data) <= SHORT_INT_DIGITS else LONG_TEXT_LEAVES
        kind = type(parsed)
        if kind is dict:
            return frozen_object(parsed, limits.max_depth, leaves)
        if kind is list:
            return frozen_array(parsed, limits.max_depth, leaves)
        check_scalar(kind, parsed)
        return parsed
    except (ValueError, RecursionError, Unfit):  # UnicodeEncodeError is a ValueError
        pass
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            return JsonError(
                JsonErrorKind.INVALID_STRING,
                "",
                f"the text is not valid UTF-8 (byte {exc.start})",
            )
    return _parse_exact(text, limits)


def _parse_exact(text: str, limits: JsonLimits) -> Any:
    """The frozen JSON of `text` parsed with hooks and walked exactly, or what is wrong."""
    try:
        raw = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        return JsonError(
            JsonErrorKind.SYNTAX,
            "",
            f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
        )
    except RecursionError:
        return _too_deep_for_parser(text, limits)
    except ValueError as exc:  # integer literals beyond Python's digit limit
        return JsonError(JsonErrorKind.TOO_LARGE, "", f"invalid JSON number: {exc}")
    return snapshot_or_error(raw, limits)


def _too_deep_for_parser(text: str, limits: JsonLimits) -> JsonError:
    """The error for text nested deeper than the C decoder recurses: find the path by scanning."""
    segments = _path_at_depth(text, limits.max_depth)
    if segments is None:
        return JsonError(
            JsonErrorKind.TOO_DEEP, "", "nesting is deeper than Python's JSON decoder can follow"
        )
    for index, segment in enumerate(segments):  # a bad key on the way is met first
        if isinstance(segment, str) and not segment.isascii():
            try:
                segment.encode("utf-8")
            except UnicodeEncodeError as exc:
                code = ord(segment[exc.start])
                return JsonError(
                    JsonErrorKind.INVALID_STRING,
                    json_pointer(segments[:index]),
                    f"the key holds a lone surrogate (\\u{code:04x}), not valid UTF-8",
                )
    return JsonError(
        JsonErrorKind.TOO_DEEP,
        json_pointer(segments),
        f"nesting is deeper than the limit of {limits.max_depth} levels",
    )


def _path_at_depth(text: str, max_depth: int) -> list[str | int] | None:
    """The path of the first container in `text` that has `max_depth` containers around it."""
    segments: list[str | int] = []
    in_object: list[bool] = []
    want_key = False
    for match in _TEXT_TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            if want_key:
                segments[-1] = _key_text(token)
                want_key = False
        elif token in "[{":
            if len(segments) >= max_depth:
                return segments
            in_object.append(token == "{")
            segments.append(0)
            want_key = token == "{"
        elif token in "]}":
            if segments:
                segments.pop()
                in_object.pop()
            want_key = False
        elif in_object:  # a comma
            if in_object[-1]:
                want_key = True
            else:
                index = segments[-1]
                segments[-1] = index + 1 if isinstance(index, int) else index
    return None


def _key_text(token: str) -> str:
    try:
        key = json.loads(token)
    except ValueError:
        return token[1:-1]
    return key if isinstance(key, str) else token[1:-1]
