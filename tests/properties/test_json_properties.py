"""Properties of lossless JSON: snapshots and parses keep every value exactly, freeze it deeply,
and name the exact JSON pointer of the first thing that is not JSON."""

from __future__ import annotations

import copy
import json
import math
import pickle
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Result, Success

from toolfx.core.json import (
    FrozenDict,
    FrozenJson,
    FrozenList,
    JsonError,
    JsonErrorKind,
    JsonLimits,
    parse_json,
    snapshot_json,
    thaw_json,
)

Segments = list[str | int]

# ---------------------------------------------------------------------------------------------
# Strategies

_TRICKY = st.sampled_from(["a", "~", "/", "1", ":", "é", "😀", "\U0010ffff", "\x00", '"', "\\"])
strings = st.text() | st.text(alphabet=_TRICKY, max_size=6)
integers = (
    st.integers()
    | st.integers(min_value=2**64, max_value=2**300)
    | st.integers(min_value=-(2**300), max_value=-(2**64))
)
floats = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([0.0, -0.0, 5e-324])
scalars = st.none() | st.booleans() | integers | floats | strings


def _containers_of(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.lists(children, max_size=5) | st.dictionaries(strings, children, max_size=5)


json_values: st.SearchStrategy[Any] = st.recursive(scalars, _containers_of, max_leaves=25)
json_containers: st.SearchStrategy[Any] = _containers_of(json_values)
json_objects: st.SearchStrategy[Any] = st.dictionaries(strings, json_values, max_size=5)


# ---------------------------------------------------------------------------------------------
# Helpers: strict comparison, frozenness, expected pointers


def same_json(actual: object, expected: object) -> bool:
    """Equal as JSON with exact scalar types: True != 1, 1 != 1.0, -0.0 != 0.0, key order kept."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or list(actual) != list(expected):
            return False
        if any(type(key) is not str for key in actual):
            return False
        return all(same_json(actual[key], item) for key, item in expected.items())
    if isinstance(expected, list | tuple):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return False
        return all(same_json(a, e) for a, e in zip(actual, expected, strict=True))
    if type(actual) is not type(expected) or actual != expected:
        return False
    if isinstance(expected, float):
        return math.copysign(1.0, expected) == math.copysign(1.0, actual)  # type: ignore[arg-type]
    return True


def containers_in(value: object) -> Iterator[object]:
    """Every container in a value, outermost first."""
    if isinstance(value, dict | list):
        yield value
        for item in value.values() if isinstance(value, dict) else value:
            yield from containers_in(item)


def is_plain(value: object) -> bool:
    return all(type(c) is dict or type(c) is list for c in containers_in(value))


_LIST_MUTATIONS: list[Callable[[Any], object]] = [
    lambda x: x.append(1),
    lambda x: x.extend([1]),
    lambda x: x.insert(0, 1),
    lambda x: x.remove(1),
    lambda x: x.pop(),
    lambda x: x.clear(),
    lambda x: x.sort(),
    lambda x: x.reverse(),
    lambda x: x.__setitem__(0, 1),
    lambda x: x.__setitem__(slice(0, 0), [1]),
    lambda x: x.__delitem__(0),
    lambda x: x.__iadd__([1]),
    lambda x: x.__imul__(2),
]
_DICT_MUTATIONS: list[Callable[[Any], object]] = [
    lambda x: x.__setitem__("k", 1),
    lambda x: x.__delitem__("k"),
    lambda x: x.clear(),
    lambda x: x.pop("k"),
    lambda x: x.popitem(),
    lambda x: x.setdefault("k", 1),
    lambda x: x.update({"k": 1}),
    lambda x: x.__ior__({"k": 1}),
]


def assert_deep_frozen(value: object) -> None:
    """Every container is a FrozenList or FrozenDict and refuses every mutator."""
    before = thaw_json(value)  # type: ignore[arg-type]
    for container in containers_in(value):
        if isinstance(container, dict):
            assert type(container) is FrozenDict
            mutations = _DICT_MUTATIONS
        else:
            assert type(container) is FrozenList
            mutations = _LIST_MUTATIONS
        for mutate in mutations:
            with pytest.raises(TypeError, match="immutable"):
                mutate(container)
    assert same_json(value, before)


def pointer(segments: Segments) -> str:
    """RFC 6901, written out independently of the module under test."""
    out = ""
    for segment in segments:
        out += "/" + str(segment).replace("~", "~0").replace("/", "~1")
    return out


def depth_of(value: object) -> int:
    """The number of containers on the longest chain of nested containers."""
    if isinstance(value, dict):
        return 1 + max((depth_of(item) for item in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth_of(item) for item in value), default=0)
    return 0


def nested_lists(levels: int) -> object:
    value: object = "leaf"
    for _ in range(levels):
        value = [value]
    return value


def failure_of(result: Result[FrozenJson, JsonError]) -> JsonError:
    assert isinstance(result, Failure), result
    error: JsonError = result.failure()
    return error


def unwrap(result: Result[FrozenJson, JsonError]) -> FrozenJson:
    assert isinstance(result, Success), result
    value: FrozenJson = result.unwrap()
    return value


@st.composite
def spots(draw: st.DrawFn, root: object) -> tuple[Segments, Any, list[Any]]:
    """A container of `root` (its path, itself, and its ancestors outermost first)."""
    found: list[tuple[Segments, Any, list[Any]]] = []

    def collect(value: object, path: Segments, ancestors: list[Any]) -> None:
        if isinstance(value, dict):
            found.append((path, value, ancestors))
            for key, item in value.items():
                collect(item, [*path, key], [*ancestors, value])
        elif isinstance(value, list):
            found.append((path, value, ancestors))
            for index, item in enumerate(value):
                collect(item, [*path, index], [*ancestors, value])

    collect(root, [], [])
    spot: tuple[Segments, Any, list[Any]] = draw(st.sampled_from(found))
    return spot


def insert_member(data: st.DataObject, parent: Any, bad: object, path: Segments) -> Segments:
    """Put `bad` at a random place in `parent` (in place); return the path it now has."""
    if isinstance(parent, list):
        index = data.draw(st.integers(0, len(parent)))
        parent.insert(index, bad)
        return [*path, index]
    key = data.draw(strings.filter(lambda k: k not in parent))
    members = list(parent.items())
    members.insert(data.draw(st.integers(0, len(members))), (key, bad))
    parent.clear()
    parent.update(members)
    return [*path, key]


# ---------------------------------------------------------------------------------------------
# Round trips


@given(json_values)
def test_snapshot_keeps_every_value_exactly(value: object) -> None:
    frozen = unwrap(snapshot_json(value))
    assert same_json(frozen, value)
    assert_deep_frozen(frozen)


@given(json_values)
def test_thaw_gives_back_plain_equal_values(value: object) -> None:
    thawed = thaw_json(unwrap(snapshot_json(value)))
    assert same_json(thawed, value)
    assert is_plain(thawed)
    for container in containers_in(thawed):  # thawed containers are new and mutable
        assert not any(container is original for original in containers_in(value))


@given(json_values, st.booleans(), st.booleans())
def test_parse_of_dumps_keeps_every_value_exactly(
    value: object, ensure_ascii: bool, as_bytes: bool
) -> None:
    text = json.dumps(value, ensure_ascii=ensure_ascii)
    parsed = unwrap(parse_json(text.encode() if as_bytes else text))
    assert same_json(parsed, value)
    assert_deep_frozen(parsed)


@given(json_values)
def test_snapshot_is_idempotent(value: object) -> None:
    once = unwrap(snapshot_json(value))
    twice = unwrap(snapshot_json(once))
    assert same_json(twice, once)
    assert_deep_frozen(twice)
    assert same_json(unwrap(snapshot_json(unwrap(parse_json(json.dumps(value))))), value)


@given(json_values)
def test_tuples_snapshot_as_arrays(value: object) -> None:
    frozen = unwrap(snapshot_json((value, [value])))
    assert same_json(frozen, [value, [value]])
    assert_deep_frozen(frozen)


@given(json_values)
def test_pickle_and_copy_round_trip(value: object) -> None:
    frozen = unwrap(snapshot_json(value))
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        loaded = pickle.loads(pickle.dumps(frozen, protocol))
        assert same_json(loaded, value)
        assert_deep_frozen(loaded)
    for copied in (copy.copy(frozen), copy.deepcopy(frozen)):
        assert same_json(copied, value)
        assert_deep_frozen(copied)


@given(json_values)
def test_equal_values_hash_equal(value: object) -> None:
    first = unwrap(snapshot_json(value))
    second = unwrap(snapshot_json(copy.deepcopy(value)))
    parsed = unwrap(parse_json(json.dumps(value)))
    assert first == second == parsed
    assert hash(first) == hash(second) == hash(parsed)
    assert {first: 1}[second] == 1


# ---------------------------------------------------------------------------------------------
# Rejections name the exact place

_BAD_VALUES: list[tuple[Callable[[], object], JsonErrorKind]] = [
    (lambda: math.nan, JsonErrorKind.NOT_FINITE),
    (lambda: math.inf, JsonErrorKind.NOT_FINITE),
    (lambda: -math.inf, JsonErrorKind.NOT_FINITE),
    (lambda: {1, 2}, JsonErrorKind.UNSUPPORTED_TYPE),
    (lambda: b"bytes", JsonErrorKind.UNSUPPORTED_TYPE),
    (object, JsonErrorKind.UNSUPPORTED_TYPE),
    (lambda: 1j, JsonErrorKind.UNSUPPORTED_TYPE),
    (lambda: "lone \ud800 surrogate", JsonErrorKind.INVALID_STRING),
    (lambda: ["ok", "\udfff"], JsonErrorKind.INVALID_STRING),
    (lambda: {7: "int key"}, JsonErrorKind.NON_STR_KEY),
    (lambda: {None: "null key"}, JsonErrorKind.NON_STR_KEY),
    (lambda: {(1, 2): "tuple key"}, JsonErrorKind.NON_STR_KEY),
]


@given(json_containers, st.sampled_from(_BAD_VALUES), st.data())
def test_bad_value_anywhere_is_rejected_at_its_pointer(
    base: object, bad_case: tuple[Callable[[], object], JsonErrorKind], data: st.DataObject
) -> None:
    make, kind = bad_case
    bad = make()
    if data.draw(st.integers(0, 5)) == 0:
        value, where = bad, []
    else:
        value = copy.deepcopy(base)
        path, parent, _ = data.draw(spots(value))
        where = insert_member(data, parent, bad, path)
    if isinstance(bad, list):
        where = [*where, 1]  # the bad string inside the list
    error = failure_of(snapshot_json(value))
    assert (error.kind, error.path) == (kind, pointer(where))
    assert str(error).endswith(" at " + (pointer(where) or "the root"))


@given(
    json_containers,
    st.integers() | st.none() | st.booleans() | st.floats(allow_nan=False) | st.tuples(st.text()),
    st.data(),
)
def test_non_str_key_is_rejected_at_its_object(
    base: object, key: object, data: st.DataObject
) -> None:
    value = {"root": copy.deepcopy(base), "holder": {}}
    objects = [spot for spot in _all_spots(value) if isinstance(spot[1], dict)]
    path, target = data.draw(st.sampled_from(objects))
    members = list(target.items())
    members.insert(data.draw(st.integers(0, len(members))), (key, "value"))
    target.clear()
    target.update(members)
    error = failure_of(snapshot_json(value))
    assert (error.kind, error.path) == (JsonErrorKind.NON_STR_KEY, pointer(path))
    assert error.reason == f"object key {key!r} is of type {type(key).__name__}, not a string"


@given(json_objects, st.data())
def test_lone_surrogate_key_is_rejected_at_its_object(base: object, data: st.DataObject) -> None:
    value = copy.deepcopy(base)
    objects = [spot for spot in _all_spots(value) if isinstance(spot[1], dict)]
    path, target = data.draw(st.sampled_from(objects))
    target["bad \udc80 key"] = 1
    error = failure_of(snapshot_json(value))
    assert (error.kind, error.path) == (JsonErrorKind.INVALID_STRING, pointer(path))
    assert error.reason == "the key holds a lone surrogate (\\udc80), not valid UTF-8"
    str(error).encode("utf-8")  # the message stays printable: the bad key is not in the path


def _all_spots(root: object) -> list[tuple[Segments, Any]]:
    found: list[tuple[Segments, Any]] = []

    def collect(value: object, path: Segments) -> None:
        if isinstance(value, dict):
            found.append((path, value))
            for key, item in value.items():
                collect(item, [*path, key])
        elif isinstance(value, list):
            found.append((path, value))
            for index, item in enumerate(value):
                collect(item, [*path, index])

    collect(root, [])
    return found


@given(json_containers, st.data())
def test_cycle_anywhere_is_rejected_where_it_closes(base: object, data: st.DataObject) -> None:
    value = copy.deepcopy(base)
    path, parent, ancestors = data.draw(spots(value))
    target = data.draw(st.sampled_from([*ancestors, parent]))
    where = insert_member(data, parent, target, path)
    error = failure_of(snapshot_json(value))
    assert (error.kind, error.path) == (JsonErrorKind.CYCLE, pointer(where))
    assert error.reason == "the value contains itself (a reference cycle)"
    # The same holds when the depth limit is far above Python's recursion limit.
    deep_limit = failure_of(snapshot_json(value, JsonLimits(max_depth=100_000)))
    assert (deep_limit.kind, deep_limit.path) == (JsonErrorKind.CYCLE, pointer(where))


@given(json_containers, st.integers(0, 4), st.data())
def test_nesting_past_the_limit_is_rejected_at_the_first_container_too_deep(
    base: object, slack: int, data: st.DataObject
) -> None:
    value = copy.deepcopy(base)
    limit = depth_of(value) + slack
    path, parent, _ = data.draw(spots(value))
    chain_length = data.draw(st.integers(1, limit + 2))
    where = insert_member(data, parent, nested_lists(chain_length), path)
    limits = JsonLimits(max_depth=limit)
    if len(where) + chain_length <= limit:  # the chain still fits
        assert same_json(unwrap(snapshot_json(value, limits)), value)
        return
    expected = [*where, *[0] * (limit - len(where))]
    for result in (snapshot_json(value, limits), parse_json(json.dumps(value), limits)):
        error = failure_of(result)
        assert (error.kind, error.path) == (JsonErrorKind.TOO_DEEP, pointer(expected))
        assert error.reason == f"nesting is deeper than the limit of {limit} levels"


@given(json_values)
def test_depth_limit_boundary(value: object) -> None:
    depth = depth_of(value)
    assert same_json(unwrap(snapshot_json(value, JsonLimits(max_depth=depth))), value)
    assert same_json(unwrap(parse_json(json.dumps(value), JsonLimits(max_depth=depth))), value)
    if depth > 0:
        assert failure_of(snapshot_json(value, JsonLimits(max_depth=depth - 1))).kind == (
            JsonErrorKind.TOO_DEEP
        )


def size_events(value: object, path: Segments) -> Iterator[tuple[Segments, int]]:
    """The documented size accounting in walk order: (where an overflow is reported, cost)."""
    if isinstance(value, str):
        yield path, len(value) + 1
    elif isinstance(value, dict):
        yield path, 1
        for key, item in value.items():
            yield path, len(key)
            yield from size_events(item, [*path, key])
    elif isinstance(value, list):
        yield path, 1
        for index, item in enumerate(value):
            yield from size_events(item, [*path, index])
    else:
        yield path, 1


@given(json_values, st.data())
def test_size_budget_is_one_per_value_plus_string_and_key_lengths(
    value: object, data: st.DataObject
) -> None:
    events = list(size_events(value, []))
    size = sum(cost for _, cost in events)
    assert same_json(unwrap(snapshot_json(value, JsonLimits(max_size=size))), value)
    budget = data.draw(st.integers(0, size - 1))
    spent, index = 0, 0
    while spent + events[index][1] <= budget:
        spent += events[index][1]
        index += 1
    where = events[index][0]  # the first value or key that does not fit
    error = failure_of(snapshot_json(value, JsonLimits(max_size=budget)))
    assert (error.kind, error.path) == (JsonErrorKind.TOO_LARGE, pointer(where))
    assert error.reason == f"the value is larger than the size budget of {budget} bytes"


@given(json_values, st.booleans())
def test_text_size_budget_boundary(value: object, as_bytes: bool) -> None:
    text = json.dumps(value, ensure_ascii=False)
    data: str | bytes = text.encode() if as_bytes else text
    assert same_json(unwrap(parse_json(data, JsonLimits(max_size=len(data)))), value)
    error = failure_of(parse_json(data, JsonLimits(max_size=len(data) - 1)))
    assert (error.kind, error.path) == (JsonErrorKind.TOO_LARGE, "")


def dumps_with_duplicate(value: object, target: Segments, data: st.DataObject) -> tuple[str, str]:
    """JSON text for `value` where the object at `target` repeats one key; returns the key."""
    repeated: list[str] = []

    def encode(item: object, path: Segments) -> str:
        if isinstance(item, dict):
            members = [json.dumps(k) + ": " + encode(v, [*path, k]) for k, v in item.items()]
            if path == target:
                if item:
                    key = data.draw(st.sampled_from(list(item)))
                    extra = json.dumps(key) + ": " + json.dumps(data.draw(json_values))
                    members.insert(data.draw(st.integers(0, len(members))), extra)
                else:
                    key = data.draw(strings)
                    members = [json.dumps(key) + ": 1", json.dumps(key) + ": 2"]
                repeated.append(key)
            return "{" + ", ".join(members) + "}"
        if isinstance(item, list):
            return "[" + ", ".join(encode(v, [*path, i]) for i, v in enumerate(item)) + "]"
        return json.dumps(item)

    text = encode(value, [])
    return text, repeated[0]


@given(json_values, st.data())
def test_duplicate_key_in_text_is_rejected_at_its_object(base: object, data: st.DataObject) -> None:
    value = {"base": base, "empty": {}}
    objects = [path for path, spot in _all_spots(value) if isinstance(spot, dict)]
    target = data.draw(st.sampled_from(objects))
    text, key = dumps_with_duplicate(value, target, data)
    error = failure_of(parse_json(text))
    assert (error.kind, error.path) == (JsonErrorKind.DUPLICATE_KEY, pointer(target))
    assert error.reason == (
        f"the object repeats the key {key!r}, so one of its values would be lost"
    )
