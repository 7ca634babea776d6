"""Properties of schemas derived from types: one declaration gives schema, validator and decoder.

Random *derivable types* (scalars, Literal, Enum, NewType, arrays, Annotated, optionals, unions of
disjoint JSON kinds, TypedDicts, frozen dataclasses, tagged unions, JsonValue) are built at run
time with fresh names, together with random values of each type. For every such pair: encoding
succeeds, the JSON decodes back to an equal value of the same shape (directly, through JSON text,
and with numbers in the other JSON form and dataclass defaults left out), the schema is portable,
decoded values are deep-frozen, and every way of breaking the type is reported at or above the
place that was broken. Unions whose members overlap are rejected when the schema is derived,
naming both members.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import itertools
import json
import operator
import types
import typing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import (
    Annotated,
    Any,
    Final,
    Literal,
    NewType,
    NotRequired,
    Required,
    TypedDict,
    get_args,
    get_origin,
)

import pytest
import typing_extensions
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from toolfx.core.json import FrozenDict, FrozenList, JsonValue, json_pointer, parse_json, thaw_json
from toolfx.core.jsonschema import check_json_schema
from toolfx.core.schema import SchemaDerivationError, schema_of

# Type forms are built at run time, so mypy sees them as values: reach the constructors as Any.
_ANNOTATED: Final[Any] = Annotated
_LITERAL: Final[Any] = Literal
_UNION: Final[Any] = typing.Union
_LIST: Final[Any] = list
_TUPLE: Final[Any] = tuple
_SEQUENCE: Final[Any] = Sequence
_ENUM: Final[Any] = enum.Enum
_TYPED_DICT: Final[Any] = typing.TypedDict
_NEW_TYPE: Final[Any] = NewType
_TYPED_DICT_MAKERS: Final[tuple[tuple[Any, Any, Any], ...]] = (
    (typing.TypedDict, typing.Required, typing.NotRequired),
    (typing_extensions.TypedDict, typing_extensions.Required, typing_extensions.NotRequired),
)
_REQUIRED: Final = (typing.Required, typing_extensions.Required)
_NOT: Final = (typing.NotRequired, typing_extensions.NotRequired)
_QUALIFIERS: Final = (*_REQUIRED, *_NOT)
OPEN_OBJECT: Final[Any] = dict[str, JsonValue]
NONE_TYPE: Final = type(None)

ALL_KINDS: Final = frozenset({"string", "integer", "number", "boolean", "null", "array", "object"})
TAG: Final = "kind"
UNKNOWN_KEY: Final = "zz_unknown"
FIELD_KEYS: Final = ("a", "b", "c", "x/y", "t~1", "é")
"""TypedDict keys; "" is left out while jsonschema-rs drops it from paths (see the xfail below)."""
MAX_EXACT_INT: Final = 2**53

_names = itertools.count()


def fresh(prefix: str) -> str:
    """A name never used before in this process."""
    return f"{prefix}{next(_names)}"


# --- reading a type form (independently of schema derivation) ---------------------------------


def unwrap(tp: Any) -> Any:
    """The type under Annotated, NewType, Required and NotRequired."""
    while True:
        if isinstance(tp, typing.NewType):
            tp = tp.__supertype__
        elif get_origin(tp) in (Annotated, *_QUALIFIERS):
            tp = get_args(tp)[0]
        else:
            return tp


def scalar_kind(value: object) -> str:
    """The JSON kind of a Literal or Enum value."""
    if value is None:
        return "null"
    return {str: "string", bool: "boolean", int: "integer"}[type(value)]


def is_union(origin: Any) -> bool:
    """Whether a type's origin is a union: typing.Union[...] or PEP 604's X | Y."""
    return origin is typing.Union or origin is types.UnionType


def is_literal(tp: Any) -> bool:
    """Whether a type form is a Literal."""
    return get_origin(tp) is _LITERAL


def is_enum(tp: Any) -> bool:
    """Whether a type form is an Enum class."""
    return isinstance(tp, type) and issubclass(tp, enum.Enum)


def is_typed_dict(tp: Any) -> bool:
    """Whether a type form is a TypedDict class (typing's or typing_extensions')."""
    return typing_extensions.is_typeddict(tp)


def is_dataclass_type(tp: Any) -> bool:
    """Whether a type form is a dataclass."""
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


def qualifier_of(hint: Any) -> Any:
    """Required or NotRequired when a hint has one, also inside Annotated; else None."""
    while get_origin(hint) is Annotated:
        hint = get_args(hint)[0]
    origin = get_origin(hint)
    return origin if origin in _QUALIFIERS else None


def hints_of(tp: Any) -> dict[str, Any]:
    """The evaluated annotations of a TypedDict or dataclass, qualifiers kept."""
    return typing.get_type_hints(tp, include_extras=True)


def json_fields(tp: Any) -> dict[str, Any]:
    """The annotations of the keys a TypedDict or dataclass has in JSON (dataclass: init ones)."""
    hints = hints_of(tp)
    if is_typed_dict(tp):
        return hints
    return {f.name: hints[f.name] for f in dataclasses.fields(tp) if f.init}


def required_fields(tp: Any) -> frozenset[str]:
    """The keys a TypedDict or dataclass value must have in JSON."""
    if is_typed_dict(tp):  # from the qualifiers: Python 3.11 misreads them under PEP 563
        return frozenset(
            key
            for key, hint in hints_of(tp).items()
            if qualifier_of(hint) in _REQUIRED or (tp.__total__ and qualifier_of(hint) not in _NOT)
        )
    return frozenset(
        f.name
        for f in dataclasses.fields(tp)
        if f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )


def kinds_of(tp: Any) -> frozenset[str]:
    """The JSON kinds a type accepts (an integral number is an integer)."""
    tp = unwrap(tp)
    origin = get_origin(tp)
    if tp is JsonValue:
        return ALL_KINDS
    if tp is None or tp is NONE_TYPE:
        return frozenset({"null"})
    if tp is float:
        return frozenset({"integer", "number"})
    if tp in (str, int, bool):
        return frozenset({scalar_kind(tp())})
    if origin is Literal:
        return frozenset(scalar_kind(v) for v in get_args(tp))
    if is_union(origin):
        return frozenset().union(*(kinds_of(m) for m in get_args(tp)))
    if origin in (list, tuple, Sequence):
        return frozenset({"array"})
    if is_enum(tp):
        return frozenset(scalar_kind(m.value) for m in tp)
    assert origin is dict or is_typed_dict(tp) or is_dataclass_type(tp), tp
    return frozenset({"object"})


def belongs(tp: Any, value: Any) -> bool:
    """Whether a Python value is a value of the type (used to pick a union's member)."""
    tp = unwrap(tp)
    origin = get_origin(tp)
    if tp is JsonValue:
        return True
    if tp is None or tp is NONE_TYPE:
        return value is None
    if tp in (str, int, float, bool):
        return type(value) is tp
    if origin is Literal:
        return any(type(value) is type(v) and value == v for v in get_args(tp))
    if is_union(origin):
        return any(belongs(m, value) for m in get_args(tp))
    if origin in (list, Sequence):
        return isinstance(value, list)
    if origin is tuple:
        return isinstance(value, tuple)
    if origin is dict:
        return isinstance(value, dict)
    if is_enum(tp) or is_dataclass_type(tp):
        return type(value) is tp
    assert is_typed_dict(tp), tp
    hints = hints_of(tp)
    return (
        isinstance(value, dict)
        and required_fields(tp) <= value.keys()
        and all(key in hints and belongs(hints[key], item) for key, item in value.items())
    )


def member_for(tp: Any, value: Any) -> Any:
    """The one member of a union that a value belongs to."""
    matches = [m for m in get_args(tp) if belongs(m, value)]
    assert len(matches) == 1, (tp, value, matches)
    return matches[0]


# --- values of a type -----------------------------------------------------------------------------

finite_floats = st.floats(allow_nan=False, allow_infinity=False)
integers = st.integers() | st.sampled_from((0, -1, 2**53, 2**53 + 1, 2**63, 2**64 + 1, -(2**70)))
texts = st.text(max_size=5) | st.sampled_from(("", "~", "/", "é", "kind"))
json_values: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | integers | finite_floats | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)


def _build(tp: Any) -> Callable[[dict[str, Any]], Any]:
    return lambda kwargs: tp(**kwargs)


def values_for(tp: Any) -> st.SearchStrategy[Any]:
    """Python values of a derivable type: instances, tuples, Enum members, partial TypedDicts."""
    origin, args = get_origin(tp), get_args(tp)
    if tp is JsonValue:
        return json_values
    if tp is None or tp is NONE_TYPE:
        return st.none()
    if tp is str:
        return texts
    if tp is bool:
        return st.booleans()
    if tp is int:
        return integers
    if tp is float:
        return finite_floats
    if isinstance(tp, typing.NewType):
        return values_for(tp.__supertype__)
    if origin in (Annotated, *_QUALIFIERS):
        return values_for(args[0])
    if origin is Literal:
        return st.sampled_from(args)
    if is_union(origin):
        return st.one_of(*(values_for(m) for m in args))
    if origin in (list, Sequence):
        return st.lists(values_for(args[0]), max_size=3)
    if origin is tuple:
        return st.lists(values_for(args[0]), max_size=3).map(tuple)
    if origin is dict:
        return st.dictionaries(texts, json_values, max_size=3)
    if is_enum(tp):
        return st.sampled_from(list(tp))
    required = required_fields(tp)
    members = {key: values_for(hint) for key, hint in json_fields(tp).items()}
    shape = st.fixed_dictionaries(
        {k: s for k, s in members.items() if k in required},
        optional={k: s for k, s in members.items() if k not in required},
    )
    if is_typed_dict(tp):
        return shape
    assert is_dataclass_type(tp), tp
    return shape.map(_build(tp))


# --- derivable types ------------------------------------------------------------------------------

scalar_types = st.sampled_from((str, int, float, bool, None, NONE_TYPE))
literal_values = st.one_of(
    st.text(max_size=3), st.integers(-(2**70), 2**70), st.booleans(), st.none()
)
literal_types = st.lists(
    literal_values, min_size=1, max_size=3, unique_by=lambda v: (type(v), v)
).map(lambda values: _LITERAL[tuple(values)])


@st.composite
def enum_types(draw: st.DrawFn) -> Any:
    """An Enum class with a fresh name and all-str or all-int values."""
    values = draw(
        st.lists(st.text(max_size=3), min_size=1, max_size=4, unique=True)
        | st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=4, unique=True)
    )
    return _ENUM(fresh("E"), [(f"M{i}", v) for i, v in enumerate(values)])


new_types = st.sampled_from((str, int, float, bool)).map(lambda base: _NEW_TYPE(fresh("N"), base))


class DeclaredArgs(TypedDict, total=False):
    """Class syntax under PEP 563: the qualifiers are strings until the hints are evaluated."""

    path: Required[Annotated[str, "a path"]]
    owner: Annotated[Required[str], "who asks"]
    limit: NotRequired[int]
    mode: Literal["r", "w"]


class DeclaredNote(typing_extensions.TypedDict):
    text: str
    tags: NotRequired[Sequence[str]]


@dataclass(frozen=True)
class DeclaredPoint:
    """A point, declared with class syntax."""

    x: float
    y: float = 0.0
    labels: tuple[str, ...] = ()
    notes: list[DeclaredNote] = dataclasses.field(default_factory=list)


leaf_types: st.SearchStrategy[Any] = st.one_of(
    scalar_types,
    literal_types,
    enum_types(),
    new_types,
    st.sampled_from((JsonValue, OPEN_OBJECT, DeclaredArgs, DeclaredNote, DeclaredPoint)),
)
descriptions = st.text(min_size=1, max_size=8)


def array_types(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """list[T], tuple[T, ...] and Sequence[T]."""
    makers = (lambda t: _LIST[t], lambda t: _TUPLE[t, ...], lambda t: _SEQUENCE[t])
    return st.tuples(st.sampled_from(makers), inner).map(lambda pair: pair[0](pair[1]))


def optional_types(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """T | None for a T that does not accept null already."""
    accepts_no_null = inner.filter(lambda t: "null" not in kinds_of(t))
    return st.tuples(accepts_no_null, union_spellings).map(lambda p: p[1]((p[0], None)))


def _typing_union(members: Sequence[Any]) -> Any:
    return _UNION[tuple(members)]


def _pep604_union(members: Sequence[Any]) -> Any:
    return functools.reduce(operator.or_, members)


union_spellings = st.sampled_from((_typing_union, _pep604_union))
"""typing.Union[A, B] or A | B (types.UnionType when both are classes)."""


def disjoint_from(kinds: frozenset[str]) -> Callable[[Any], bool]:
    """A predicate: the type accepts none of these JSON kinds."""
    return lambda tp: not kinds_of(tp) & kinds


@st.composite
def disjoint_unions(draw: st.DrawFn, inner: st.SearchStrategy[Any]) -> Any:
    """A union of two or three members whose JSON kinds do not overlap."""
    members = [draw(inner)]
    seen = kinds_of(members[0])
    for _ in range(draw(st.integers(1, 2))):
        member = draw(inner.filter(disjoint_from(seen)))
        members.append(member)
        seen |= kinds_of(member)
    return draw(union_spellings)(members)


def _qualified(draw: st.DrawFn, hint: Any, required: Any, not_required: Any) -> Any:
    """The hint, or Required[hint] or NotRequired[hint], maybe inside Annotated (PEP 655)."""
    qualifier = draw(st.sampled_from((None, required, not_required)))
    if qualifier is None:
        return hint
    if draw(st.booleans()):
        return _ANNOTATED[qualifier[hint], "qualified"]
    return qualifier[hint]


@st.composite
def typed_dicts(
    draw: st.DrawFn, inner: st.SearchStrategy[Any], tags: tuple[object, ...] = ()
) -> Any:
    """A TypedDict (functional syntax, fresh name), with a required Literal tag when given."""
    maker, required, not_required = draw(st.sampled_from(_TYPED_DICT_MAKERS))
    keys = draw(st.lists(st.sampled_from(FIELD_KEYS), unique=True, max_size=3))
    fields = {key: _qualified(draw, draw(inner), required, not_required) for key in keys}
    if tags:
        fields[TAG] = required[_LITERAL[tags]]
    return maker(fresh("TD"), fields, total=draw(st.booleans()))


def _constant(value: Any) -> Callable[[], Any]:
    return lambda: value


@st.composite
def frozen_dataclasses(
    draw: st.DrawFn, inner: st.SearchStrategy[Any], tags: tuple[object, ...] = ()
) -> Any:
    """A frozen dataclass (make_dataclass, fresh name); the last fields may have defaults."""
    hints = draw(st.lists(inner, max_size=3))
    first_default = draw(st.integers(0, len(hints)))
    specs: list[Any] = [(TAG, _LITERAL[tags])] if tags else []
    for index, hint in enumerate(hints):
        name = f"f{index}"
        if index < first_default:
            specs.append((name, hint))
            continue
        default = draw(values_for(hint))
        if type(default).__hash__ is None:  # dataclasses refuse mutable defaults: use a factory
            specs.append((name, hint, dataclasses.field(default_factory=_constant(default))))
        else:
            specs.append((name, hint, dataclasses.field(default=default)))
    if draw(st.integers(0, 4)) == 0:  # a field set by the class itself: not in the JSON
        specs.append(("derived", int, dataclasses.field(init=False, default=draw(integers))))
    return dataclasses.make_dataclass(fresh("DC"), specs, frozen=True)


tag_values = st.text(max_size=3) | st.integers(-3, 3)


@st.composite
def tagged_unions(draw: st.DrawFn, inner: st.SearchStrategy[Any]) -> Any:
    """Two or three object types, each with its own distinct values for a required tag."""
    count = draw(st.integers(2, 3))
    values = draw(
        st.lists(tag_values, min_size=count, max_size=count + 2, unique_by=lambda v: (type(v), v))
    )
    groups: list[list[object]] = [[v] for v in values[:count]]
    for value in values[count:]:
        groups[draw(st.integers(0, count - 1))].append(value)
    branches = [
        draw(typed_dicts(inner, tuple(g)) | frozen_dataclasses(inner, tuple(g))) for g in groups
    ]
    return draw(union_spellings)(branches)


@st.composite
def pick(draw: st.DrawFn, options: Sequence[st.SearchStrategy[Any]]) -> Any:
    """A value of one of the strategies, each chosen equally often (one_of would flatten them)."""
    return draw(options[draw(st.integers(0, len(options) - 1))])


def derivable_types(depth: int, leaf_weight: int = 1) -> st.SearchStrategy[Any]:
    """Random type forms that schema_of supports, nested at most `depth` levels.

    Each level is a leaf with probability leaf_weight / (leaf_weight + 1), so that sizes stay
    bounded while every kind of container appears often.
    """
    if depth == 0:
        return leaf_types
    inner = derivable_types(depth - 1)
    containers = pick(
        [
            array_types(inner),
            st.tuples(inner, descriptions).map(lambda p: _ANNOTATED[p[0], p[1]]),
            optional_types(inner),
            disjoint_unions(inner),
            typed_dicts(inner),
            frozen_dataclasses(inner),
            tagged_unions(inner),
        ]
    )
    return pick([*([leaf_types] * leaf_weight), containers])


type_forms = derivable_types(3, leaf_weight=0)


@st.composite
def typed_values(draw: st.DrawFn) -> tuple[Any, Any]:
    """A derivable type and a value of it."""
    tp = draw(type_forms)
    return tp, draw(values_for(tp))


# --- comparing and walking values along their type ------------------------------------------------


def assert_same_json(expected: Any, actual: Any, where: str) -> None:
    """Equal JSON with exact types, containers frozen."""
    if isinstance(expected, dict):
        assert type(actual) is FrozenDict, where
        assert list(actual) == list(expected), where
        for key, item in expected.items():
            assert_same_json(item, actual[key], f"{where}/{key}")
    elif isinstance(expected, list):
        assert type(actual) is FrozenList, where
        assert len(actual) == len(expected), where
        for index, item in enumerate(expected):
            assert_same_json(item, actual[index], f"{where}/{index}")
    else:
        assert type(actual) is type(expected), (where, expected, actual)
        assert actual == expected, (where, expected, actual)


def assert_same(tp: Any, expected: Any, actual: Any, where: str = "") -> None:
    """The decoded value has the shape the type promises and equals the original."""
    tp = unwrap(tp)
    origin = get_origin(tp)
    if tp is JsonValue or origin is dict:
        assert_same_json(expected, actual, where)
    elif is_union(origin):
        assert_same(member_for(tp, expected), expected, actual, where)
    elif is_enum(tp):
        assert actual is expected, (where, expected, actual)
    elif origin in (list, tuple, Sequence):
        assert type(actual) is (tuple if origin is tuple else FrozenList), (where, actual)
        assert len(actual) == len(expected), where
        for index, (old, new) in enumerate(zip(expected, actual, strict=True)):
            assert_same(get_args(tp)[0], old, new, f"{where}/{index}")
    elif is_typed_dict(tp):
        assert type(actual) is FrozenDict, (where, actual)
        assert actual.keys() == expected.keys(), where
        hints = hints_of(tp)
        for key, item in expected.items():
            assert_same(hints[key], item, actual[key], f"{where}/{key}")
    elif is_dataclass_type(tp):
        assert type(actual) is tp, (where, actual)
        hints = hints_of(tp)
        for fld in dataclasses.fields(tp):
            name = fld.name
            old, new = getattr(expected, name), getattr(actual, name)
            assert_same(hints[name], old, new, f"{where}/{name}")
    else:  # scalars and Literal values: the same Python type, so ints stay int, floats float
        assert type(actual) is type(expected), (where, expected, actual)
        assert actual == expected, (where, expected, actual)


def assert_deep_frozen(value: Any, where: str = "") -> None:
    """No plain list or dict anywhere in a decoded value."""
    if isinstance(value, list):
        assert type(value) is FrozenList, where
        for index, item in enumerate(value):
            assert_deep_frozen(item, f"{where}/{index}")
    elif isinstance(value, dict):
        assert type(value) is FrozenDict, where
        for key, item in value.items():
            assert_deep_frozen(item, f"{where}/{key}")
    elif isinstance(value, tuple):
        for index, item in enumerate(value):
            assert_deep_frozen(item, f"{where}/{index}")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        assert type(value).__dict__["__dataclass_params__"].frozen, where
        for fld in dataclasses.fields(value):
            assert_deep_frozen(getattr(value, fld.name), f"{where}/{fld.name}")


def _fields_of(tp: Any, value: Any, encoded: Any) -> Iterator[tuple[str, Any, Any, Any]]:
    """(key, hint, value, JSON) for each member of a TypedDict or dataclass value."""
    hints = hints_of(tp)
    for key, item in encoded.items():
        original = value[key] if is_typed_dict(tp) else getattr(value, key)
        yield key, hints[key], original, item


def _defaults_left_out(tp: Any, value: Any, encoded: dict[str, Any]) -> dict[str, Any]:
    """A dataclass's JSON without the fields that hold their very default object."""
    if not is_dataclass_type(tp):
        return encoded
    left_out = set()
    for fld in dataclasses.fields(tp):
        if fld.default is not dataclasses.MISSING:
            default = fld.default
        elif fld.default_factory is not dataclasses.MISSING:
            default = fld.default_factory()
        else:
            continue
        if getattr(value, fld.name) is default:
            left_out.add(fld.name)
    return {key: item for key, item in encoded.items() if key not in left_out}


def rewritten(tp: Any, value: Any, encoded: Any) -> Any:
    """The JSON in another valid form: each number in the other form (2 as 2.0 for ints, 2.0
    as 2 for floats), and dataclass fields that hold their default left out."""
    tp = unwrap(tp)
    origin = get_origin(tp)
    if is_union(origin):
        return rewritten(member_for(tp, value), value, encoded)
    if origin in (list, tuple, Sequence):
        item = get_args(tp)[0]
        return [rewritten(item, v, e) for v, e in zip(value, encoded, strict=True)]
    if is_typed_dict(tp) or is_dataclass_type(tp):
        members = {key: rewritten(h, v, e) for key, h, v, e in _fields_of(tp, value, encoded)}
        return _defaults_left_out(tp, value, members)
    if tp is JsonValue or origin is dict:
        return encoded
    if tp is float and encoded.is_integer():
        return int(encoded)
    if type(encoded) is int and abs(encoded) <= MAX_EXACT_INT:
        return float(encoded)  # an int field, an int Literal or an int Enum
    return encoded


@dataclass(frozen=True)
class Mutation:
    """One way to break a value: replace the JSON at a path, delete a key, or add one."""

    action: Literal["replace", "delete", "add"]
    segments: tuple[str | int, ...]
    replacement: Any = None

    def apply(self, document: Any) -> Any:
        """A mutated plain copy of a frozen JSON document."""
        copy = thaw_json(document)
        if not self.segments:
            return self.replacement
        parent: Any = copy
        for segment in self.segments[:-1]:
            parent = parent[segment]
        last = self.segments[-1]
        if self.action == "delete":
            del parent[last]
        else:
            parent[last] = self.replacement
        return copy


WRONG_KIND: Final[dict[str, Any]] = {
    "string": "wrong",
    "integer": 7,
    "number": 0.5,
    "boolean": True,
    "null": None,
    "array": [],
    "object": {},
}


def _outside(values: Sequence[Any]) -> Iterator[Any]:
    """Scalars of the same kinds as `values` that no generated Literal, Enum or tag holds."""
    strings = [v for v in values if type(v) is str]
    if strings:
        yield "out of set: " + max(strings, key=len)
    numbers = [v for v in values if type(v) is int]
    if numbers:
        yield max(numbers) + 1000
    booleans = [v for v in values if type(v) is bool]
    if len(booleans) == 1:
        yield not booleans[0]


def mutations(
    tp: Any, value: Any, encoded: Any, at: tuple[str | int, ...] = (), *, in_union: bool = False
) -> Iterator[Mutation]:
    """Every way this walk knows to make the JSON of a value invalid for its type.

    Inside a union, only the union itself replaces the value by one of another JSON kind: the
    other members may accept kinds that this member does not.
    """
    tp = unwrap(tp)
    origin = get_origin(tp)
    if not in_union:
        for kind in sorted(ALL_KINDS - kinds_of(tp)):
            yield Mutation("replace", at, WRONG_KIND[kind])
    if origin is Literal:
        for other in _outside(get_args(tp)):
            yield Mutation("replace", at, other)
    elif is_enum(tp):
        for other in _outside([m.value for m in tp]):
            yield Mutation("replace", at, other)
    elif is_union(origin):
        yield from mutations(member_for(tp, value), value, encoded, at, in_union=True)
    elif origin in (list, tuple, Sequence):
        for index, (v, e) in enumerate(zip(value, encoded, strict=True)):
            yield from mutations(get_args(tp)[0], v, e, (*at, index))
    elif is_typed_dict(tp) or is_dataclass_type(tp):
        yield Mutation("add", (*at, UNKNOWN_KEY), 0)
        for key in sorted(required_fields(tp)):
            yield Mutation("delete", (*at, key))
        for key, hint, v, e in _fields_of(tp, value, encoded):
            yield from mutations(hint, v, e, (*at, key))


def is_at_or_above(pointer: str, segments: tuple[str | int, ...]) -> bool:
    """Whether a JSON pointer names the location of `segments` or one of its ancestors."""
    location = json_pointer(segments)
    return pointer == location or location.startswith(pointer + "/")


# --- properties -----------------------------------------------------------------------------------


def encoded_of(tp: Any, value: Any) -> Any:
    """The value encoded by its schema (which must succeed)."""
    result = schema_of(tp).encode(value)
    assert isinstance(result, Success), (tp, value, result)
    return result.unwrap()


def decoded_of(tp: Any, document: Any) -> Any:
    """The JSON validated and decoded by the type's schema (which must succeed)."""
    result = schema_of(tp).validate(document)
    assert isinstance(result, Success), (tp, document, result)
    return result.unwrap()


@given(typed_values())
def test_encoded_values_decode_to_an_equal_value_of_the_same_shape(pair: tuple[Any, Any]) -> None:
    tp, value = pair
    decoded = decoded_of(tp, encoded_of(tp, value))
    assert decoded == value
    assert_same(tp, value, decoded)


@given(typed_values())
def test_the_model_path_through_json_text_decodes_the_same(pair: tuple[Any, Any]) -> None:
    tp, value = pair
    text = json.dumps(encoded_of(tp, value))
    decoded = decoded_of(tp, parse_json(text).unwrap())
    assert decoded == value
    assert_same(tp, value, decoded)


@given(typed_values())
def test_other_valid_json_forms_decode_to_the_same_value(pair: tuple[Any, Any]) -> None:
    tp, value = pair
    document = rewritten(tp, value, encoded_of(tp, value))
    for candidate in (document, parse_json(json.dumps(document)).unwrap()):
        decoded = decoded_of(tp, candidate)
        assert decoded == value
        assert_same(tp, value, decoded)


@given(type_forms)
def test_derived_schemas_are_inside_the_portable_subset(tp: Any) -> None:
    schema = schema_of(tp).json_schema
    assert isinstance(check_json_schema(schema, "portable"), Success), schema


@given(typed_values())
def test_decoded_values_are_deep_frozen(pair: tuple[Any, Any]) -> None:
    tp, value = pair
    encoded = encoded_of(tp, value)
    assert_deep_frozen(decoded_of(tp, encoded))
    assert_deep_frozen(decoded_of(tp, rewritten(tp, value, encoded)))  # defaults filled in


@given(typed_values())
def test_breaking_the_type_is_reported_at_or_above_the_break(pair: tuple[Any, Any]) -> None:
    tp, value = pair
    schema = schema_of(tp)
    encoded = encoded_of(tp, value)
    for mutation in itertools.islice(mutations(tp, value, encoded), 60):
        result = schema.validate(mutation.apply(encoded))
        assert isinstance(result, Failure), (tp, mutation, result)
        paths = [issue.path for issue in result.failure().issues]
        assert any(is_at_or_above(path, mutation.segments) for path in paths), (mutation, paths)


# --- ambiguous unions -----------------------------------------------------------------------------


def _integer_members() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.sampled_from((int, float)),
        st.lists(st.integers(-5, 5), min_size=1, max_size=2, unique=True).map(
            lambda v: _LITERAL[tuple(v)]
        ),
        st.sampled_from((int, float)).map(lambda b: _NEW_TYPE(fresh("N"), b)),
        st.sampled_from((int, float)).map(lambda b: _ANNOTATED[b, "a number"]),
        st.just(0).map(lambda _: _ENUM(fresh("E"), [("A", 1), ("B", 2)])),
    )


def _string_members() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.just(str),
        st.lists(st.text(max_size=2), min_size=1, max_size=2, unique=True).map(
            lambda v: _LITERAL[tuple(v)]
        ),
        st.just(0).map(lambda _: _NEW_TYPE(fresh("N"), str)),
        st.just(_ANNOTATED[str, "a string"]),
        st.just(0).map(lambda _: _ENUM(fresh("E"), [("A", "a"), ("B", "b")])),
    )


def _array_members() -> st.SearchStrategy[Any]:
    return array_types(leaf_types)


untagged_fields = st.sampled_from((str, int, float, bool, JsonValue, list[int]))


def _object_members() -> st.SearchStrategy[Any]:
    shared_tag = ("same",)
    return st.one_of(
        typed_dicts(untagged_fields),
        frozen_dataclasses(untagged_fields),
        st.just(OPEN_OBJECT),
        typed_dicts(untagged_fields, shared_tag),
        frozen_dataclasses(untagged_fields, shared_tag),
    )


@st.composite
def overlapping_pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    """Two distinct types that a JSON value of one kind can match both of."""
    family = draw(
        st.sampled_from((_integer_members, _string_members, _array_members, _object_members))
    )
    first = draw(family())
    second = draw(
        st.just(JsonValue)
        | family().filter(lambda t: t != first and not (is_literal(t) and is_literal(first)))
    )
    return (first, second) if draw(st.booleans()) else (second, first)


def display_name(tp: Any) -> str:
    """How an error message names a member: its name, or the repr of a generic form."""
    name = getattr(tp, "__name__", None)
    return name if isinstance(name, str) and get_origin(tp) is None else repr(tp)


@given(
    overlapping_pairs(),
    st.sampled_from(("bare", "optional", "in a list", "in a TypedDict")),
    union_spellings,
)
def test_ambiguous_unions_are_rejected_naming_both_members(
    pair: tuple[Any, Any], placement: str, spelling: Callable[[Sequence[Any]], Any]
) -> None:
    first, second = pair
    union = spelling((first, second))
    if placement == "optional" and "null" not in kinds_of(union):
        union = spelling((first, second, None))
    # typing caches unions by equality, so a member may be an equal twin (Literal[0, 1] for
    # Literal[1, 0]) from an earlier union: the message names the members the union holds
    names = [display_name(m) for m in get_args(union) if m in (first, second)]
    if placement == "in a list":
        union = _LIST[union]
    elif placement == "in a TypedDict":
        union = _TYPED_DICT(fresh("Holder"), {"field": union})
    try:
        schema_of(union)
    except SchemaDerivationError as error:
        message = str(error)
    else:
        raise AssertionError(f"{union!r} was derived although it is ambiguous")
    assert "ambiguous" in message
    assert len(names) == 2, names
    for name in names:
        assert name in message, (name, message)


@pytest.mark.xfail(reason="jsonschema-rs 0.61 drops empty-string keys from instance_path")
def test_an_issue_under_an_empty_key_names_that_key() -> None:
    holder = _TYPED_DICT(fresh("Holder"), {"": list[int]})
    result = schema_of(holder).validate({"": ["x"]})
    assert isinstance(result, Failure)
    assert [issue.path for issue in result.failure().issues] == ["//0"]
