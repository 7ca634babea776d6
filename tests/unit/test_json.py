"""Lossless JSON by example: every error kind and message, the limits, and hostile inputs."""

from __future__ import annotations

import cProfile
import enum
import json
import math
import sys
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

import pytest
from returns.result import Failure, Result, Success

from toolfx.core.json import (
    DEFAULT_LIMITS,
    MAX_INT_DIGITS,
    FrozenDict,
    FrozenJson,
    FrozenList,
    JsonError,
    JsonErrorKind,
    JsonLimits,
    is_frozen_json,
    json_pointer,
    parse_json,
    plural,
    snapshot_json,
    thaw_json,
)

K = JsonErrorKind


def ok(result: Result[FrozenJson, JsonError]) -> FrozenJson:
    assert isinstance(result, Success), result
    value: FrozenJson = result.unwrap()
    return value


def err(result: Result[FrozenJson, JsonError]) -> JsonError:
    assert isinstance(result, Failure), result
    error: JsonError = result.failure()
    return error


def nested_lists(levels: int, leaf: object = 0) -> Any:
    """`levels` arrays around `leaf`, built without recursion."""
    value: Any = leaf
    for _ in range(levels):
        value = [value]
    return value


def nested_objects(levels: int, key: str = "a") -> Any:
    value: Any = None
    for _ in range(levels):
        value = {key: value}
    return value


class Work:
    """Fails a test whose body makes more function calls (Python and C, counted by cProfile)
    than its budget: a bound on the work hostile input costs, not on any clock."""

    def __init__(self, calls: int) -> None:
        self.calls = calls
        self.profile = cProfile.Profile()

    def __enter__(self) -> Work:
        self.profile.enable()
        return self

    def __exit__(self, *exc: object) -> None:
        self.profile.disable()
        made = sum(entry.callcount for entry in self.profile.getstats())
        assert made <= self.calls, f"made {made} calls, over the budget of {self.calls}"


# ---------------------------------------------------------------------------------------------
# Accepted values


def test_documented_default_limits() -> None:
    assert DEFAULT_LIMITS == JsonLimits() == JsonLimits(max_depth=128, max_size=32 * 1024 * 1024)


def test_scalars_and_containers_are_kept_exactly() -> None:
    value = {"s": "😀 é", "i": 2**200, "neg": -(2**70), "f": -0.0, "t": True, "n": None, "l": []}
    frozen = ok(snapshot_json(value))
    assert frozen == value
    assert isinstance(frozen, FrozenDict)
    assert list(frozen) == list(value)
    assert frozen["i"] == 2**200
    assert type(frozen["t"]) is bool
    assert math.copysign(1.0, frozen["f"]) == -1.0
    assert type(frozen["l"]) is FrozenList


def test_parse_keeps_every_digit_of_integers() -> None:
    digits = "9" * 4000
    assert ok(parse_json(f"[{digits}, -{digits}]")) == [int(digits), -int(digits)]
    assert ok(parse_json("18446744073709551617")) == 2**64 + 1
    assert type(ok(parse_json("1"))) is int
    assert type(ok(parse_json("1.0"))) is float


def test_scalar_subclasses_become_plain_values() -> None:
    class Color(enum.StrEnum):
        RED = "red"

    class Level(enum.IntEnum):
        HIGH = 3

    class Ratio(float):
        pass

    frozen = ok(snapshot_json({"c": Color.RED, "l": Level.HIGH, "r": Ratio(0.5)}))
    assert frozen == {"c": "red", "l": 3, "r": 0.5}
    assert isinstance(frozen, Mapping)
    assert [type(v) for v in frozen.values()] == [str, int, float]


def test_other_mappings_and_sequences() -> None:
    class Box(Mapping[str, int]):
        def __getitem__(self, key: str) -> int:
            return {"x": 1}[key]

        def __iter__(self) -> Iterator[str]:
            return iter(["x"])

        def __len__(self) -> int:
            return 1

    frozen = ok(snapshot_json([OrderedDict(b=1, a=2), Box(), (1, 2)]))
    assert frozen == [{"b": 1, "a": 2}, {"x": 1}, [1, 2]]
    assert [type(item) for item in frozen] == [FrozenDict, FrozenDict, FrozenList]


def test_shared_subvalues_are_not_cycles() -> None:
    shared = {"k": [1]}
    assert ok(snapshot_json([shared, shared, {"again": shared}])) == [
        shared,
        shared,
        {"again": shared},
    ]


def test_thaw_returns_plain_mutable_copies() -> None:
    frozen = ok(parse_json('{"a": [1, {"b": [true, null, "x"]}], "c": 1.5}'))
    thawed: Any = thaw_json(frozen)
    assert thawed == {"a": [1, {"b": [True, None, "x"]}], "c": 1.5}
    assert type(thawed) is dict
    assert type(thawed["a"]) is list
    assert type(thawed["a"][1]) is dict
    thawed["a"].append(2)
    assert frozen == {"a": [1, {"b": [True, None, "x"]}], "c": 1.5}
    assert thaw_json("x") == "x"
    assert thaw_json(None) is None


def test_frozen_containers_cannot_be_made_directly() -> None:
    with pytest.raises(TypeError, match="FrozenList values come from snapshot_json or parse_json"):
        FrozenList([1])
    with pytest.raises(TypeError, match="FrozenDict values come from snapshot_json or parse_json"):
        FrozenDict(a=1)
    with pytest.raises(TypeError):
        FrozenDict.fromkeys(["a"])


def test_frozen_containers_refuse_changes() -> None:
    frozen: Any = ok(parse_json('{"a": [1, 2]}'))
    with pytest.raises(TypeError, match="FrozenDict is immutable"):
        frozen["b"] = 1
    with pytest.raises(TypeError, match="FrozenList is immutable"):
        frozen["a"].append(3)
    with pytest.raises(TypeError, match="FrozenList is immutable"):
        frozen["a"] += [3]
    with pytest.raises(TypeError, match="FrozenDict is immutable"):
        frozen |= {"b": 1}
    assert frozen == {"a": [1, 2]}


def test_is_frozen_json() -> None:
    assert is_frozen_json(ok(parse_json("[1]")))
    assert is_frozen_json(ok(parse_json("{}")))
    scalars: tuple[object, ...] = ("x", 1, 1.5, True, None)
    assert all(is_frozen_json(v) for v in scalars)
    others: tuple[object, ...] = ([1], {}, math.nan, math.inf, b"x", (1,))
    assert not any(is_frozen_json(v) for v in others)


def test_json_pointer_escapes() -> None:
    assert json_pointer([]) == ""
    assert json_pointer(["a/b", "m~n", 0, ""]) == "/a~1b/m~0n/0/"


# ---------------------------------------------------------------------------------------------
# Every error kind, with its message and path


def test_syntax_error() -> None:
    error = err(parse_json('{"a": }'))
    assert error == JsonError(K.SYNTAX, "", "invalid JSON: Expecting value (line 1, column 7)")
    assert str(error) == "invalid JSON: Expecting value (line 1, column 7) at the root"
    assert err(parse_json("")).kind is K.SYNTAX
    assert err(parse_json("[1] [2]")).reason == "invalid JSON: Extra data (line 1, column 5)"
    assert err(parse_json('"\\uZZZZ"')).kind is K.SYNTAX


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        (math.nan, "", "nan is not a finite number"),
        ({"a": [1, math.inf]}, "/a/1", "inf is not a finite number"),
        ([{"x~/": -math.inf}], "/0/x~0~1", "-inf is not a finite number"),
    ],
)
def test_not_finite_values(value: object, path: str, reason: str) -> None:
    error = err(snapshot_json(value))
    assert error == JsonError(K.NOT_FINITE, path, reason)
    assert str(error) == f"{reason} at {path or 'the root'}"


@pytest.mark.parametrize(
    ("text", "path", "number"),
    [
        ("1e400", "", "1e400"),
        ('{"a": [0, -1e400]}', "/a/1", "-1e400"),
        ("[NaN]", "/0", "NaN"),
        ("NaN", "", "NaN"),
        ("-Infinity", "", "-Infinity"),
        (b'{"x": NaN}', "/x", "NaN"),
        ('{"x": Infinity}', "/x", "Infinity"),
        ('{"x": {"y": -Infinity}}', "/x/y", "-Infinity"),
        ("[1.5e309]", "/0", "1.5e309"),
    ],
)
def test_not_finite_numbers_in_text(text: str | bytes, path: str, number: str) -> None:
    error = err(parse_json(text))
    reason = f"the number {number} is not a finite double-precision number"
    assert error == JsonError(K.NOT_FINITE, path, reason)


def test_tiny_numbers_are_finite() -> None:
    assert ok(parse_json("[1e-400, 5e-324]")) == [0.0, 5e-324]


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        ({1: "x"}, "", "object key 1 is of type int, not a string"),
        ({"a": {None: 1}}, "/a", "object key None is of type NoneType, not a string"),
        ([{"ok": 1, (1, 2): 2}], "/0", "object key (1, 2) is of type tuple, not a string"),
        ({"a": 1, True: 2}, "", "object key True is of type bool, not a string"),
    ],
)
def test_non_str_keys(value: object, path: str, reason: str) -> None:
    assert err(snapshot_json(value)) == JsonError(K.NON_STR_KEY, path, reason)


def test_duplicate_keys() -> None:
    reason = "the object repeats the key 'b', so one of its values would be lost"
    assert err(parse_json('{"a": {"b": 1, "b": 2}}')) == JsonError(K.DUPLICATE_KEY, "/a", reason)
    assert err(parse_json('[{"b": 1, "c": 0, "b": 1}]')) == JsonError(K.DUPLICATE_KEY, "/0", reason)
    assert err(parse_json('{"": 1, "": 1}')).reason == (
        "the object repeats the key '', so one of its values would be lost"
    )


@pytest.mark.parametrize(
    "text",
    [
        '{"a": "x:y", "a": 1}',  # a colon in a string cannot hide the repeat
        '{"a:b": 1, "a:b": 2}',
        '{"u": "\\u003a", "u": 1}',  # nor an escaped colon
        '{"u": "\\u003A", "v": {"w": 1, "w": ":"}}',
    ],
)
def test_duplicate_keys_next_to_colons(text: str) -> None:
    assert err(parse_json(text)).kind is K.DUPLICATE_KEY


def test_colons_in_strings_are_fine() -> None:
    text = '{"url": "https://x.y/a:b", "c:d": {"\\u003a": ":"}, "t": "12:30"}'
    assert ok(parse_json(text)) == {"url": "https://x.y/a:b", "c:d": {":": ":"}, "t": "12:30"}


def test_cycles() -> None:
    reason = "the value contains itself (a reference cycle)"
    loop: list[Any] = []
    loop.append(loop)
    assert err(snapshot_json(loop)) == JsonError(K.CYCLE, "/0", reason)
    outer: dict[str, Any] = {"a": [1, {}]}
    outer["a"][1]["back"] = outer
    assert err(snapshot_json(outer)) == JsonError(K.CYCLE, "/a/1/back", reason)
    inner: dict[str, Any] = {}
    inner["self"] = inner
    assert err(snapshot_json({"x": [inner]})) == JsonError(K.CYCLE, "/x/0/self", reason)


@pytest.mark.parametrize(
    ("bad", "name"),
    [
        (b"x", "bytes"),
        ({1, 2}, "set"),
        (object(), "object"),
        (Decimal("1.5"), "Decimal"),
        (1j, "complex"),
        (range(3), "range"),
        (frozenset(), "frozenset"),
    ],
)
def test_unsupported_types(bad: object, name: str) -> None:
    reason = f"a value of type {name} is not JSON"
    assert err(snapshot_json(bad)) == JsonError(K.UNSUPPORTED_TYPE, "", reason)
    assert err(snapshot_json({"a": [0, bad]})) == JsonError(K.UNSUPPORTED_TYPE, "/a/1", reason)


def test_lone_surrogates_in_values_and_keys() -> None:
    value_reason = "the string holds a lone surrogate (\\ud800), not valid UTF-8"
    key_reason = "the key holds a lone surrogate (\\udc00), not valid UTF-8"
    assert err(snapshot_json(["ok", "a\ud800"])) == JsonError(K.INVALID_STRING, "/1", value_reason)
    assert err(snapshot_json({"a": {"x\udc00": 1}})) == JsonError(
        K.INVALID_STRING, "/a", key_reason
    )


@pytest.mark.parametrize(
    ("text", "path", "code"),
    [
        ('"\\ud800"', "", "d800"),
        ('["ok", "x\\udfff"]', "/1", "dfff"),
        ('{"k": "\\ud800\\u0041"}', "/k", "d800"),  # a high surrogate not followed by a low one
        ('{"a": {"\\udc00": 1}}', "/a", "dc00"),  # a bad key names its object
    ],
)
def test_lone_surrogate_escapes_in_text(text: str, path: str, code: str) -> None:
    error = err(parse_json(text))
    assert (error.kind, error.path) == (K.INVALID_STRING, path)
    assert f"lone surrogate (\\u{code}), not valid UTF-8" in error.reason


def test_surrogate_pairs_are_one_character() -> None:
    assert ok(parse_json('"\\ud83d\\ude00"')) == "😀"
    assert ok(parse_json('"\\uDBFF\\uDFFF"')) == "\U0010ffff"


@pytest.mark.parametrize(
    ("data", "byte"),
    [
        (b'{"a": "\xff"}', 7),
        (b'"\xc0\xaf"', 1),  # an overlong encoding
        (b'"\xed\xa0\x80"', 1),  # an encoded surrogate
        (b'"abc\xe2\x82"', 4),  # truncated
    ],
)
def test_invalid_utf8_bytes(data: bytes, byte: int) -> None:
    reason = f"the text is not valid UTF-8 (byte {byte})"
    assert err(parse_json(data)) == JsonError(K.INVALID_STRING, "", reason)


def test_bytes_text_is_utf8() -> None:
    assert ok(parse_json('{"é": "😀"}'.encode())) == {"é": "😀"}


def test_error_messages_name_the_path_and_the_problem() -> None:
    error = err(snapshot_json({"tools": [{"args": {"n": math.nan}}]}))
    assert str(error) == "nan is not a finite number at /tools/0/args/n"


# ---------------------------------------------------------------------------------------------
# Depth limit


def test_depth_boundary_default() -> None:
    assert ok(snapshot_json(nested_lists(128))) == nested_lists(128)
    assert ok(parse_json("[" * 128 + "]" * 128)) == nested_lists(127, leaf=[])
    reason = "nesting is deeper than the limit of 128 levels"
    deep = JsonError(K.TOO_DEEP, "/0" * 128, reason)
    assert err(snapshot_json(nested_lists(129))) == deep
    assert err(parse_json("[" * 129 + "]" * 129)) == deep


@pytest.mark.parametrize("limit", [0, 1, 2, 5])
def test_depth_boundary_custom(limit: int) -> None:
    limits = JsonLimits(max_depth=limit)
    assert ok(snapshot_json(nested_objects(limit), limits)) == nested_objects(limit)
    text = json.dumps(nested_objects(limit + 1))
    expected = JsonError(
        K.TOO_DEEP, "/a" * limit, f"nesting is deeper than the limit of {limit} levels"
    )
    assert err(snapshot_json(nested_objects(limit + 1), limits)) == expected
    assert err(parse_json(text, limits)) == expected
    assert ok(snapshot_json("scalars have no depth", limits)) == "scalars have no depth"


def test_deep_text_100_000_levels() -> None:
    reason = "nesting is deeper than the limit of 128 levels"
    with Work(calls=20_000):  # refused at level 128: far fewer calls than 100,000 levels
        arrays = err(parse_json("[" * 100_000 + "]" * 100_000))
        objects = err(parse_json('{"a/b":' * 100_000 + "1" + "}" * 100_000))
        mixed = err(parse_json('{"k": [0, ' + "[" * 100_000))  # unterminated as well
    assert arrays == JsonError(K.TOO_DEEP, "/0" * 128, reason)
    assert objects == JsonError(K.TOO_DEEP, "/a~1b" * 128, reason)
    assert mixed == JsonError(K.TOO_DEEP, "/k/1" + "/0" * 126, reason)


def test_deep_text_behind_a_bad_key() -> None:
    error = err(parse_json('{"ok": {"\\udc01": ' + "[" * 100_000))
    reason = "the key holds a lone surrogate (\\udc01), not valid UTF-8"
    assert error == JsonError(K.INVALID_STRING, "/ok", reason)
    str(error).encode()  # printable: the path never holds the bad key


def test_deep_value_100_000_levels() -> None:
    reason = "nesting is deeper than the limit of 128 levels"
    arrays, objects = nested_lists(100_000), nested_objects(100_000)
    with Work(calls=20_000):  # refused at level 128: far fewer calls than 100,000 levels
        assert err(snapshot_json(arrays)) == JsonError(K.TOO_DEEP, "/0" * 128, reason)
        assert err(snapshot_json(objects)) == JsonError(K.TOO_DEEP, "/a" * 128, reason)


def test_depth_limit_above_the_recursion_limit() -> None:
    limits = JsonLimits(max_depth=1_000_000)
    arrays = nested_lists(20_000)
    with Work(calls=100 * 20_000):  # linear in the depth (a quadratic walk: ~4e8 calls)
        frozen = ok(snapshot_json(arrays, limits))
        innermost: Any = frozen
        for _ in range(20_000):
            assert type(innermost) is FrozenList
            innermost = innermost[0]
        assert innermost == 0
        assert err(snapshot_json(nested_lists(20_000), JsonLimits(max_depth=10_000))) == (
            JsonError(K.TOO_DEEP, "/0" * 10_000, "nesting is deeper than the limit of 10000 levels")
        )
        cyclic: list[Any] = [1]
        cyclic.append([cyclic])
        assert err(snapshot_json(cyclic, limits)) == JsonError(
            K.CYCLE, "/1/0", "the value contains itself (a reference cycle)"
        )
        # Text deeper than the C decoder can follow is still a typed error.
        error = err(parse_json("[" * 100_000 + "]" * 100_000, limits))
    assert error == JsonError(
        K.TOO_DEEP, "", "nesting is deeper than Python's JSON decoder can follow"
    )
    assert sys.getrecursionlimit() < 20_000


# ---------------------------------------------------------------------------------------------
# Size budget


def test_value_size_boundary() -> None:
    value = {"ab": "xyz", "n": [1, None]}  # 1 + (2 + 4) + (1 + 1 + 1 + 1) = 11
    assert ok(snapshot_json(value, JsonLimits(max_size=11))) == value
    error = err(snapshot_json(value, JsonLimits(max_size=10)))
    assert error == JsonError(
        K.TOO_LARGE, "/n/1", "the value is larger than the size budget of 10 bytes"
    )
    assert err(snapshot_json(value, JsonLimits(max_size=2))).path == ""  # the key "ab" overflows
    assert err(snapshot_json(value, JsonLimits(max_size=5))).path == "/ab"


def test_value_size_counts_empty_strings_and_containers() -> None:
    assert err(snapshot_json([""] * 10, JsonLimits(max_size=10))).path == "/9"
    assert err(snapshot_json([{}] * 10, JsonLimits(max_size=10))).path == "/9"
    assert ok(snapshot_json([{}] * 9, JsonLimits(max_size=10))) == [{}] * 9
    assert err(snapshot_json("", JsonLimits(max_size=0))).kind is K.TOO_LARGE


def test_text_size_boundary() -> None:
    text = '{"a": [1, 2, 3]}'
    assert ok(parse_json(text, JsonLimits(max_size=len(text)))) == {"a": [1, 2, 3]}
    reason = f"the text is {len(text)} long, over the size budget of {len(text) - 1} bytes"
    assert err(parse_json(text, JsonLimits(max_size=len(text) - 1))) == JsonError(
        K.TOO_LARGE, "", reason
    )
    data = '"é"'.encode()  # the budget counts bytes for bytes
    assert err(parse_json(data, JsonLimits(max_size=3))).kind is K.TOO_LARGE
    assert ok(parse_json(data, JsonLimits(max_size=4))) == "é"


def test_huge_integer_text_is_too_large() -> None:
    digits = "7" * MAX_INT_DIGITS
    assert ok(parse_json(digits)) == int(digits)
    error = err(parse_json('{"n": ' + digits + "7}"))
    assert error.kind is K.TOO_LARGE
    assert str(MAX_INT_DIGITS) in error.reason


def test_huge_integer_values_are_too_large_with_their_path() -> None:
    largest = 10**MAX_INT_DIGITS - 1
    assert ok(snapshot_json([largest, -largest])) == [largest, -largest]
    for huge in (largest + 1, -largest - 1):
        error = err(snapshot_json({"a": [1, huge]}))
        assert error.kind is K.TOO_LARGE
        assert error.path == "/a/1"
        assert f"more than {MAX_INT_DIGITS} digits" in error.reason


def test_ten_megabyte_string() -> None:
    big = "x" * 10_000_000
    text = json.dumps({"s": big})
    with Work(calls=1_000):  # no work per character
        assert ok(parse_json(text)) == {"s": big}
        assert ok(parse_json(text.encode())) == {"s": big}
        assert ok(snapshot_json([big])) == [big]
        small = JsonLimits(max_size=1_000_000)
        assert err(parse_json(text, small)).kind is K.TOO_LARGE
        assert err(snapshot_json([big], small)) == JsonError(
            K.TOO_LARGE, "/0", "the value is larger than the size budget of 1000000 bytes"
        )


def test_ten_megabyte_non_ascii_string() -> None:
    big = "é" * 5_000_000 + "\ud800"
    with Work(calls=1_000):  # no work per character
        assert err(snapshot_json({"s": big})).path == "/s"
        assert err(parse_json(json.dumps({"s": big}))).path == "/s"


def test_million_element_array() -> None:
    numbers = list(range(1_000_000))
    text = json.dumps(numbers)
    with Work(calls=4 * 1_000_000):  # a few calls per element, for six walks
        assert ok(parse_json(text)) == numbers
        frozen = ok(snapshot_json(numbers))
        assert frozen == numbers
        assert type(frozen) is FrozenList
        assert err(snapshot_json(numbers, JsonLimits(max_size=500_000))) == JsonError(
            K.TOO_LARGE, "/499999", "the value is larger than the size budget of 500000 bytes"
        )
        assert err(parse_json(text, JsonLimits(max_size=1_000_000))).kind is K.TOO_LARGE


def test_million_element_array_with_a_bad_item_at_the_end() -> None:
    numbers: list[object] = [*range(1_000_000), math.nan]
    with Work(calls=12 * 1_000_000):  # linear: at most six calls per element a walk
        assert err(snapshot_json(numbers)).path == "/1000000"
        assert err(parse_json("[" + "1," * 1_000_000 + "NaN]")).path == "/1000000"


def test_shared_references_cannot_blow_up_the_budget() -> None:
    value: Any = ["x" * 1000]
    for _ in range(60):  # 2**60 strings if walked naively
        value = [value, value]
    with Work(calls=20_000):  # stops at the budget, not after 2**60 strings
        assert err(snapshot_json(value, JsonLimits(max_size=100_000))).kind is K.TOO_LARGE


def test_is_frozen_json_refuses_integers_beyond_the_digit_limit() -> None:
    assert is_frozen_json(10**MAX_INT_DIGITS - 1)
    assert not is_frozen_json(10**MAX_INT_DIGITS)
    assert not is_frozen_json(-(10**MAX_INT_DIGITS))


def test_is_frozen_json_refuses_text_that_is_not_utf8() -> None:
    assert is_frozen_json("é")
    assert not is_frozen_json("\ud800")


def test_the_work_budget_fails_a_body_over_it() -> None:
    def hundred_calls() -> None:
        for _ in range(100):
            len("counted")

    budget = Work(calls=10)
    budget.__enter__()
    hundred_calls()
    with pytest.raises(AssertionError, match=r"calls, over the budget of 10\n"):
        budget.__exit__()


@pytest.mark.parametrize(
    ("count", "words", "said"),
    [
        (1, ("line",), "1 line"),
        (0, ("line",), "0 lines"),
        (2, ("match", "matches"), "2 matches"),
        (1, ("match", "matches"), "1 match"),
        (3, ("ask waits", "asks wait"), "3 asks wait"),
    ],
)
def test_plural_counts_a_word_with_its_plural_given_when_not_just_an_s(
    count: int, words: tuple[str, ...], said: str
) -> None:
    assert plural(count, *words) == said
