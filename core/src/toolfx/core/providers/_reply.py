"""A model's reply as the provider sent it: a JSON dict, or the SDK's own pydantic object.

Replies are hostile input: `Reply` reads one step at a time and every wrong shape is a
`ReplyError` naming where (a JSON pointer into the reply) and what was found instead. An SDK
object is read through its JSON dump wherever it sits: the root, an item of a list (a
`Response`'s `output`, a `Message`'s `content`), or a value inside a dict the caller built.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, final

from toolfx.core.json import describe_value, json_pointer

__all__ = ["ProviderReply", "Reply", "ReplyError", "SupportsModelDump"]


class SupportsModelDump(Protocol):
    """An SDK's pydantic object (a ChatCompletion, a Message, a GenerateContentResponse...)."""

    def model_dump(self, *, mode: Literal["json"]) -> Mapping[str, Any]:
        """The object as JSON-ready data."""
        ...


ProviderReply = Mapping[str, object] | Sequence[object] | SupportsModelDump
"""A reply as the provider's HTTP API gives it (parsed JSON), or as its SDK does."""


class ReplyError(ValueError):
    """A reply whose shape is not the provider's: where (a JSON pointer) and what was found."""


@final
@dataclass(frozen=True, slots=True)
class Reply:
    """One place in a reply: its value and the JSON pointer segments that lead to it."""

    value: object
    path: tuple[str | int, ...] = ()

    @classmethod
    def of(cls, reply: ProviderReply) -> Reply:
        """The root of a reply (an SDK object is read through its JSON dump)."""
        if not isinstance(reply, Mapping | Sequence) and not callable(_dumper(reply)):
            raise ReplyError(f"a reply is a dict or an SDK object, not {describe_value(reply)}")
        return _place(reply, ())

    def has(self, key: str) -> bool:
        """Whether this is an object with `key` set (to anything but null)."""
        return isinstance(self.value, Mapping) and self.value.get(key) is not None

    def at(self, *keys: str) -> Reply:
        """The first of `keys` this object sets (null when none is); an error if not an object."""
        if not isinstance(self.value, Mapping):
            raise self.error(f"expected an object, found {describe_value(self.value)}")
        for key in keys:
            if self.value.get(key) is not None:
                return _place(self.value[key], (*self.path, key))
        return Reply(None, (*self.path, keys[0]))

    def text(self, *keys: str) -> str:
        """The string at the first of `keys` that is set; an error if none is a string."""
        found = self.at(*keys)
        if not isinstance(found.value, str):
            raise found.error(f"expected a string, found {describe_value(found.value)}")
        return found.value

    def items(self) -> Iterator[Reply]:
        """Each item of this array (none for null); an error if it is something else."""
        if self.value is None:
            return
        if not isinstance(self.value, Sequence) or isinstance(self.value, str | bytes):
            raise self.error(f"expected an array, found {describe_value(self.value)}")
        for index, item in enumerate(self.value):
            yield _place(item, (*self.path, index))

    def first(self) -> Reply | None:
        """The first item of this array (None when the array is empty or null)."""
        return next(self.items(), None)

    def kind(self) -> str | None:
        """This object's `type` when it is a string (None otherwise)."""
        kind = self.value.get("type") if isinstance(self.value, Mapping) else None
        return kind if isinstance(kind, str) else None

    def error(self, problem: str) -> ReplyError:
        """A ReplyError about this place."""
        return ReplyError(f"the reply at {json_pointer(self.path) or '(root)'}: {problem}")


def _dumper(value: object) -> object:
    """The value's `model_dump` when it is an SDK object (None for plain data)."""
    if isinstance(value, Mapping | Sequence):
        return None
    return getattr(value, "model_dump", None)


def _place(value: object, path: tuple[str | int, ...]) -> Reply:
    """A place in the reply, an SDK object there read through its JSON dump."""
    dump = _dumper(value)
    if not callable(dump):
        return Reply(value, path)
    try:
        dumped = dump(mode="json")
    except Exception as error:  # an SDK object that cannot dump itself: the reply is unreadable
        where = json_pointer(path) or "(root)"
        raise ReplyError(f"the reply at {where}: its model_dump failed: {error}") from error
    return Reply(dumped, path)
