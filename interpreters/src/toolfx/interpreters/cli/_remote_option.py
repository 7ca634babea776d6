"""`toolfx run --remote WHERE`: the forms it takes, parsed into frozen values.

`ray` and `ray:ADDRESS` name a Ray cluster, `local` and `local:N` worker processes of this
machine; `_remote` makes the runner each names.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Final, final

__all__ = ["REMOTE_FORMS", "LocalWorkers", "RayCluster", "RemoteOption", "parse_remote"]

REMOTE_FORMS: Final = "ray, ray:ADDRESS, local or local:N"
"""The forms `--remote` takes, as its usage errors name them."""


@final
@dataclass(frozen=True, slots=True)
class RayCluster:
    """`--remote ray[:ADDRESS]`: each body a task on a Ray cluster (address None: the cluster
    `ray.init()` finds, `RAY_ADDRESS` first, else one it starts on this machine)."""

    address: str | None = None


@final
@dataclass(frozen=True, slots=True)
class LocalWorkers:
    """`--remote local[:N]`: each body in a child process of this machine, at most `workers`
    at once (None: one per CPU)."""

    workers: int | None = None


RemoteOption = RayCluster | LocalWorkers
"""Where `--remote` runs the bodies."""


def parse_remote(text: str) -> RemoteOption:
    """The option `--remote TEXT` names; a ValueError naming the accepted forms otherwise."""
    kind, colon, rest = text.partition(":")
    if kind == "ray":
        if colon and not rest:
            raise ValueError(f"expected {REMOTE_FORMS}, not {text!r}: give an address after ray:")
        return RayCluster(rest or None)
    if kind == "local":
        if not colon:
            return LocalWorkers()
        if rest.isascii() and rest.isdigit() and int(rest) > 0:
            return LocalWorkers(int(rest))
        raise ValueError(
            f"expected {REMOTE_FORMS}, not {text!r}: N is how many worker processes run bodies"
            " at once, a whole number of at least 1"
        )
    close = difflib.get_close_matches(kind, ("ray", "local"), n=1, cutoff=0.5)
    meant = f"; did you mean {close[0]}{colon}{rest}?" if close else ""
    raise ValueError(f"expected {REMOTE_FORMS}, not {text!r}{meant}")
