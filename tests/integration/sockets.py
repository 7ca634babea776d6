"""Which sockets a tree of processes listens on, read from /proc: for the tests that Ray binds
only to the loopback interface."""

from __future__ import annotations

import contextlib
import ipaddress
import os
from pathlib import Path
from typing import Final

__all__ = ["listening_sockets", "loopback"]

_TABLES: Final = {"tcp": "0A", "tcp6": "0A", "udp": "07", "udp6": "07"}
"""The /proc/net tables, and the state of a socket that waits for peers there (TCP: LISTEN;
UDP: bound, unconnected)."""


def listening_sockets(pids: set[int]) -> list[tuple[int, str, str]]:
    """(pid, address, table) of each socket of `pids` that waits for peers."""
    owners: dict[str, int] = {}
    for pid in pids:
        with contextlib.suppress(OSError):  # ended while listed
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):  # closed while listed
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        owners[target[8:-1]] = pid
    found = []
    for table, state in _TABLES.items():
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == state and fields[9] in owners:
                found.append((owners[fields[9]], _address(fields[1]), table))
    return found


def _address(field: str) -> str:
    """The address of a /proc/net local address field (hex, in host byte order per word)."""
    raw = bytes.fromhex(field.split(":", maxsplit=1)[0])
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(words))


def loopback(address: str) -> bool:
    """Whether `address` is a loopback address (an IPv4-mapped one included)."""
    parsed = ipaddress.ip_address(address)
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        return parsed.ipv4_mapped.is_loopback
    return parsed.is_loopback
