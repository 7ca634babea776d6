"""A reply's digest: a deterministic token that tells replies apart (core has no clocks and no
randomness), for the call ids toolfx makes where a reply gives none.

Replies are hostile input: the walk is iterative (no depth limit to hit), visits each container
once (a cycle ends), and reads every value by kind, never through its `repr`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

__all__ = ["digest"]


def digest(value: object) -> str:
    """A hex SHA-256 of `value`'s content (dicts, lists, text, bytes, numbers and constants)."""
    hashed = hashlib.sha256()
    pending: list[object] = [value]
    visited: set[int] = set()
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
            visited.add(id(item))
            entries = (
                [e for pair in item.items() for e in pair] if isinstance(item, Mapping) else item
            )
            hashed.update(b"%c%d:" % (ord("{" if isinstance(item, Mapping) else "["), len(item)))
            pending.extend(reversed(entries))
        else:
            hashed.update(_scalar(item))
    return hashed.hexdigest()


def _scalar(item: object) -> bytes:
    """A scalar's bytes: a number's value, a constant's name, any other object's type name."""
    if isinstance(item, bool) or item is None:
        return b"c" + repr(item).encode()
    if isinstance(item, int):
        return b"i" + item.to_bytes((item.bit_length() + 8) // 8, "big", signed=True) + b";"
    if isinstance(item, float):
        return b"f" + item.hex().encode() + b";"
    return b"o" + type(item).__qualname__.encode("utf-8", "surrogatepass") + b";"
