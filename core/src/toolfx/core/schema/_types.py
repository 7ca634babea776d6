"""Reading Python type declarations for schemas: hints, requiredness, qualifiers and names."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any, Final, NoReturn, get_args, get_origin

import typing_extensions

from toolfx.core.json import JsonValue

__all__ = [
    "SchemaDerivationError",
    "add_doc",
    "allows_extra_keys",
    "fail",
    "strip_qualifiers",
    "type_hints",
    "type_name",
    "typed_dict_fields",
]


class SchemaDerivationError(TypeError):
    """A type that cannot become a JSON Schema, with the place (type and field) that failed."""

    __module__ = "toolfx.core"  # its public home, shown in tracebacks

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"cannot derive a JSON Schema for {where}: {reason}")
        self.where = where
        self.reason = reason


def fail(where: str, reason: str) -> NoReturn:
    """Raise the derivation error for `where`."""
    raise SchemaDerivationError(where, reason)


def type_name(tp: object) -> str:
    """A short, readable name for a type form."""
    name = getattr(tp, "__name__", None)
    return name if isinstance(name, str) and get_origin(tp) is None else repr(tp)


def type_hints(tp: type, where: str) -> dict[str, Any]:
    """The evaluated annotations of a TypedDict or dataclass, with Annotated kept."""
    settled = _settled_annotations(tp)
    return settled if settled is not None else _evaluated_hints(tp, where)


def typed_dict_fields(tp: type, where: str) -> tuple[dict[str, Any], frozenset[str]]:
    """A TypedDict's field types (qualifiers stripped, Annotated kept) and its required keys."""
    settled = _settled_annotations(tp)
    if settled is not None:  # every annotation a plain class: no qualifier to read or strip
        baseline: frozenset[str] = getattr(tp, "__required_keys__", frozenset())
        return settled, baseline.intersection(settled)
    hints = _evaluated_hints(tp, where)
    required = _required_keys(tp, hints)
    return {key: strip_qualifiers(hint) for key, hint in hints.items()}, required


def _evaluated_hints(tp: type, where: str) -> dict[str, Any]:
    try:
        return typing.get_type_hints(tp, include_extras=True)
    except NameError as exc:
        fail(
            where,
            f"an annotation of {tp.__name__} cannot be resolved ({exc}); define the "
            "type at module level so its annotations can be evaluated",
        )


def _settled_annotations(tp: type) -> dict[str, Any] | None:
    """A class's annotations when `get_type_hints` would give them back as they are: only the
    class itself annotates (no base does) and every annotation is a class, which evaluating
    leaves alone (no string, forward reference, None or alias to evaluate); else None."""
    if getattr(tp, "__no_type_check__", None):
        return None
    own = vars(tp).get("__annotations__")
    if type(own) is not dict or any("__annotations__" in vars(base) for base in tp.__mro__[1:]):
        return None
    if not all(isinstance(hint, type) for hint in own.values()):
        return None  # a generic alias such as list[int] is not a type (Python 3.11 on)
    return dict(own)


_NO_EXTRA_ITEMS: Final = getattr(typing_extensions, "NoExtraItems", None)
_NEVER: Final = (typing.Never, typing.NoReturn, typing_extensions.Never, typing_extensions.NoReturn)


def allows_extra_keys(tp: type, where: str) -> bool:
    """Whether a TypedDict declares itself open (PEP 728); objects are closed otherwise.

    typing_extensions sets `__closed__` to None when `closed` is not given: that is not a
    declaration, so only `closed=False` or `extra_items=JsonValue` opens the object.
    """
    extra = getattr(tp, "__extra_items__", _NO_EXTRA_ITEMS)
    if extra is not _NO_EXTRA_ITEMS and extra is not None:
        extra = strip_qualifiers(extra)
        if extra is JsonValue:
            return True
        if extra not in _NEVER:
            fail(
                where,
                f"extra_items={extra!r} cannot be enforced (the portable subset has no schema "
                "for additional properties); use extra_items=JsonValue or closed=True",
            )
        return False
    return getattr(tp, "__closed__", None) is False


_REQUIRED: Final = (typing.Required, typing_extensions.Required)
_NOT_REQUIRED: Final = (typing.NotRequired, typing_extensions.NotRequired)


def _required_keys(tp: type, hints: Mapping[str, object]) -> frozenset[str]:
    """Required keys, trusting explicit Required/NotRequired over `__required_keys__`.

    Python 3.11 computes `__required_keys__` from string annotations (PEP 563) without seeing
    the qualifiers, so the evaluated hints have the last word.
    """
    baseline: frozenset[str] = getattr(tp, "__required_keys__", frozenset())
    required = set()
    for key, hint in hints.items():
        qualifiers = _qualifiers(hint)
        if any(q in _REQUIRED for q in qualifiers) or (
            key in baseline and not any(q in _NOT_REQUIRED for q in qualifiers)
        ):
            required.add(key)
    return frozenset(required)


_QUALIFIERS: Final = (*_REQUIRED, *_NOT_REQUIRED, typing_extensions.ReadOnly)
_ANNOTATED: Final = (typing.Annotated, typing_extensions.Annotated)


def _qualifiers(hint: object) -> list[object]:
    """The qualifiers (Required, NotRequired, ReadOnly) of a hint, also under Annotated."""
    found = []
    while True:
        origin = get_origin(hint)
        if origin in _QUALIFIERS:
            found.append(origin)
        elif origin not in _ANNOTATED:
            return found
        hint = get_args(hint)[0]


def strip_qualifiers(hint: object) -> object:
    """The hint without its qualifiers, which may also sit inside Annotated (PEP 655)."""
    origin = get_origin(hint)
    if origin in _QUALIFIERS:
        return strip_qualifiers(get_args(hint)[0])
    if origin in _ANNOTATED:
        inner, *metadata = get_args(hint)
        stripped = strip_qualifiers(inner)
        if stripped is not inner:
            return typing.Annotated[(stripped, *metadata)]
    return hint


def add_doc(schema: dict[str, Any], doc: str | None) -> None:
    """Use a class docstring, whitespace folded, as the schema's description."""
    if doc and doc.strip():
        schema["description"] = " ".join(doc.split())
