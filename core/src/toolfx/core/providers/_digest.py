"""A reply's digest: a deterministic token that tells replies apart (core has no clocks and no
randomness), for the call ids toolfx makes where a reply gives none.

Replies are hostile input: the walk is iterative (no depth limit to hit), visits each container
once (a cycle ends), and reads every value by kind, never through its `repr`; an SDK object is
read through its JSON dump, wherever it sits.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

__all__ = ["digest"]


def digest(value: object) -> str:
    """A hex SHA-256 of `value`'s content (dicts, lists, text, bytes, numbers and constants)."""
    hashed = hashlib.sha256()
    pending: list[object] = [value]
    visited: dict[int, object] = {}  # by id, each kept alive so no id is reused during the walk
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            hashed.update(b"s%d:" % len(item))
            hashed.update(item.encode("utf-8", "surrogatepass"))
        elif isinstance(item, bytes | bytearray):
            hashed.update(b"b%d:" % len(item))
            hashed.update(item)
        elif isinstance(item, Mapping | Sequence):
            if id(item) in visited:
                hashed.update(b"^")  # seen before (shared or a cycle): walked once
                continue
            visited[id(item)] = item
            entries = (
                [e for pair in item.items() for e in pair] if isinstance(item, Mapping) else item
            )
            hashed.update(b"%c%d:" % (ord("{" if isinstance(item, Mapping) else "["), len(item)))
            pending.extend(reversed(entries))
        elif (dumped := _dump(item)) is not None:
            pending.append(dumped)
        else:
            hashed.update(_scalar(item))
    return hashed.hexdigest()


def _dump(item: object) -> object | None:
    """An SDK object's JSON dump (None for anything else, or a dump that fails)."""
    dump = getattr(item, "model_dump", None)
    if not callable(dump):
        return None
    try:
        dumped: object = dump(mode="json")
    except Exception:  # the object is then known by its type alone
        return None
    return dumped


def _scalar(item: object) -> bytes:
    """A scalar's bytes: a number's value, a constant's name, any other object's type name."""
    if isinstance(item, bool) or item is None:
        return b"c" + repr(item).encode()
    if isinstance(item, int):
        return b"i" + item.to_bytes((item.bit_length() + 8) // 8, "big", signed=True) + b";"
    if isinstance(item, float):
        return b"f" + item.hex().encode() + b";"
    return b"o" + type(item).__qualname__.encode("utf-8", "surrogatepass") + b";"
