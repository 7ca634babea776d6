"""Parsing JSON text into deep-frozen JSON, with duplicate keys and non-finite numbers refused."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

from returns.result import Failure, Result, Success

from toolfx.core.json._frozen import FrozenDict, FrozenList
from toolfx.core.json._model import (
    DEFAULT_LIMITS,
    FrozenJson,
    JsonError,
    JsonErrorKind,
    JsonLimits,
    json_pointer,
)
from toolfx.core.json._snapshot import (
    DuplicateKeyMarker,
    TextNumberRejected,
    Unfit,
    fast_snapshot,
    snapshot_json,
)

__all__ = ["parse_json"]


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


_PLAIN_DECODER: Final = json.JSONDecoder()
_DECODER: Final = json.JSONDecoder(
    object_pairs_hook=_object_pairs,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
)
_TEXT_TOKEN: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[][{},]', re.DOTALL)


def parse_json(
    text: str | bytes, limits: JsonLimits = DEFAULT_LIMITS
) -> Result[FrozenJson, JsonError]:
    """Parse JSON text into deep-frozen JSON, or say what is wrong and where."""
    if len(text) > limits.max_size:
        return Failure(
            JsonError(
                JsonErrorKind.TOO_LARGE,
                "",
                f"the text is {len(text)} long, over the size budget of {limits.max_size} bytes",
            )
        )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Failure(
                JsonError(
                    JsonErrorKind.INVALID_STRING,
                    "",
                    f"the text is not valid UTF-8 (byte {exc.start})",
                )
            )
    # Fast path: the C decoder without hooks, then the fast walk. Its value is the hooked
    # decoder's exactly when no key repeats, which the count of ':' in the text proves (every
    # member has one; see _no_repeated_key). Anything else takes the exact path.
    tally = [limits.max_size, 0]
    try:
        frozen = fast_snapshot(_PLAIN_DECODER.decode(text), limits, tally)
    except (ValueError, RecursionError, Unfit):
        return _parse_exact(text, limits)
    if tally[1] == text.count(":") or _no_repeated_key(text, frozen, tally[1]):
        return Success(frozen)
    return _parse_exact(text, limits)


def _no_repeated_key(text: str, frozen: FrozenJson, keys: int) -> bool:
    """Whether the value parsed from `text` kept every member the text has.

    The text's colons are one per member plus those inside strings; a value that lost members to
    repeated keys has fewer keys and string colons than that, unless the text spells a colon as
    an escape (then the answer is a conservative False).
    """
    if "\\u003a" in text or "\\u003A" in text:
        return False
    try:
        return keys + _colons(frozen) == text.count(":")
    except RecursionError:
        return False


def _colons(value: object) -> int:
    """How many ':' the strings and keys of a fast-walked value hold."""
    kind = type(value)
    if kind is str:
        return value.count(":")  # type: ignore[attr-defined, no-any-return]
    total = 0
    if kind is FrozenDict:
        for key, item in value.items():  # type: ignore[attr-defined]
            total += key.count(":")
            item_kind = type(item)
            if item_kind is str:
                total += item.count(":")
            elif item_kind is FrozenDict or item_kind is FrozenList:
                total += _colons(item)
    elif kind is FrozenList:
        for item in value:  # type: ignore[attr-defined]
            item_kind = type(item)
            if item_kind is str:
                total += item.count(":")
            elif item_kind is FrozenDict or item_kind is FrozenList:
                total += _colons(item)
    return total


def _parse_exact(text: str, limits: JsonLimits) -> Result[FrozenJson, JsonError]:
    try:
        raw = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        return Failure(
            JsonError(
                JsonErrorKind.SYNTAX,
                "",
                f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            )
        )
    except RecursionError:
        return Failure(_too_deep_for_parser(text, limits))
    except ValueError as exc:  # integer literals beyond Python's digit limit
        return Failure(JsonError(JsonErrorKind.TOO_LARGE, "", f"invalid JSON number: {exc}"))
    return snapshot_json(raw, limits)


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
