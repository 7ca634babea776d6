"""Lossless JSON: deep-frozen values, parsing, snapshots and their limits (the bottom layer)."""

from toolfx.core.json._frozen import FrozenDict, FrozenList, frozen_dict_of, frozen_list_of
from toolfx.core.json._model import (
    DEFAULT_LIMITS,
    INT_BOUND,
    MAX_INT_DIGITS,
    NEGATIVE_INT_BOUND,
    FrozenJson,
    JsonError,
    JsonErrorKind,
    JsonLimits,
    JsonValue,
    json_pointer,
)
from toolfx.core.json._render import (
    MAX_RENDERED_CHARS,
    describe_schema,
    describe_value,
    names,
    plural,
    render_literal,
    truncate,
)
from toolfx.core.json._snapshot import snapshot_json, snapshot_or_error
from toolfx.core.json._text import parse_json, parse_or_error
from toolfx.core.json._thaw import is_frozen_json, thaw_json

__all__ = [
    "DEFAULT_LIMITS",
    "INT_BOUND",
    "MAX_INT_DIGITS",
    "MAX_RENDERED_CHARS",
    "NEGATIVE_INT_BOUND",
    "FrozenDict",
    "FrozenJson",
    "FrozenList",
    "JsonError",
    "JsonErrorKind",
    "JsonLimits",
    "JsonValue",
    "describe_schema",
    "describe_value",
    "frozen_dict_of",
    "frozen_list_of",
    "is_frozen_json",
    "json_pointer",
    "names",
    "parse_json",
    "parse_or_error",
    "plural",
    "render_literal",
    "snapshot_json",
    "snapshot_or_error",
    "thaw_json",
    "truncate",
]
