"""A model's reply as the provider sent it: a JSON dict, or the SDK's own pydantic object.

Replies are hostile input: `Reply` reads one step at a time and every wrong shape is a
`ReplyError` naming where (a JSON pointer into the reply) and what was found instead.
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
        if isinstance(reply, Mapping | Sequence):
            return cls(reply)
        dump = getattr(reply, "model_dump", None)
        if not callable(dump):
            raise ReplyError(f"a reply is a dict or an SDK object, not {describe_value(reply)}")
        return cls(dump(mode="json"))

    def has(self, key: str) -> bool:
        """Whether this is an object with `key` set (to anything but null)."""
        return isinstance(self.value, Mapping) and self.value.get(key) is not None

    def at(self, *keys: str) -> Reply:
        """The first of `keys` this object sets (null when none is); an error if not an object."""
        if not isinstance(self.value, Mapping):
            raise self.error(f"expected an object, found {describe_value(self.value)}")
        for key in keys:
            if self.value.get(key) is not None:
                return Reply(self.value[key], (*self.path, key))
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
            yield Reply(item, (*self.path, index))

    def first(self) -> Reply:
        """The first item of this array (null when it is empty or null)."""
        return next(self.items(), Reply(None, (*self.path, 0)))

    def kind(self) -> str | None:
        """This object's `type` when it is a string (None otherwise)."""
        kind = self.value.get("type") if isinstance(self.value, Mapping) else None
        return kind if isinstance(kind, str) else None

    def error(self, problem: str) -> ReplyError:
        """A ReplyError about this place."""
        return ReplyError(f"the reply at {json_pointer(self.path) or '(root)'}: {problem}")
