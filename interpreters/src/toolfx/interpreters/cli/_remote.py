"""What `toolfx run --remote` does to a run: the runner its option names, and the catalog whose
parallel-safe tools (but `read`) are placed there.

`ray` and `ray:ADDRESS` run the bodies as tasks on a Ray cluster (`RayRemote`, imported only
then: the `ray` extra), `local` and `local:N` in child processes of this machine
(`ProcessRemote`). Only the bodies move: the run's rules, asks, records and display stay here.
Workers find the tools through the same `toolfx.tools` providers over the workspace, at the same
absolute path.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Final

from toolfx.core.runtime import RemotePlacement
from toolfx.interpreters.cli._remote_option import LocalWorkers, RemoteOption
from toolfx.interpreters.remote import ProcessRemote, ProvidedTools

if TYPE_CHECKING:
    from toolfx.core.json import JsonValue
    from toolfx.core.registry import Catalog
    from toolfx.core.runtime import RemoteRunner, SandboxMode

__all__ = ["RemoteUnavailableError", "placed_remotely", "remote_runner"]

RAY_EXTRA: Final = "toolfx-interpreters[ray] (or toolfx[ray])"
"""What to install for `--remote ray`."""

KEPT_HERE: Final = frozenset({"read"})
"""Parallel-safe tools whose bodies run here all the same: a `read` notes what this session saw
of a file, which `edit` and `write` check before they change it, and a read on a worker would be
noted in the worker's process, not here (every later edit refused as unread)."""


class RemoteUnavailableError(Exception):
    """The runner `--remote` asks for cannot be made here (Ray not installed, no cluster)."""


def remote_runner(
    option: RemoteOption, root: str, rules: JsonValue, sandbox: SandboxMode
) -> RemoteRunner:
    """The runner `option` names, its workers finding the tools of the `toolfx.tools` providers
    over `root` under `rules` and `sandbox` (as the run's own); a `RemoteUnavailableError` when
    Ray is asked for and cannot be imported or finds no cluster."""
    source = ProvidedTools.of(root, rules, sandbox)
    if isinstance(option, LocalWorkers):
        return ProcessRemote(source, workers=option.workers)
    try:
        from toolfx.interpreters.remote.ray import RayRemote  # noqa: PLC0415 (the `ray` extra)

        return RayRemote(source, address=option.address)
    except ImportError as error:
        if error.name == "ray":
            raise RemoteUnavailableError(
                f"--remote ray needs Ray, which is not installed: install {RAY_EXTRA}"
            ) from None
        raise RemoteUnavailableError(
            f"--remote ray could not import Ray ({error}): reinstall {RAY_EXTRA}"
        ) from None
    except ConnectionError as error:  # `ray:auto` (or RAY_ADDRESS=auto) with none running
        given = "ray" if option.address is None else f"ray:{option.address}"
        reason = str(error).split(". ", 1)[0].rstrip(".")  # Ray's advice names its own flags
        raise RemoteUnavailableError(
            f"--remote {given} found no Ray cluster to connect to ({reason}): start one"
            " (ray start --head) or give its address as ray:ADDRESS"
        ) from None


def placed_remotely(catalog: Catalog) -> Catalog:
    """`catalog` with every parallel-safe tool that has no placement, but those `KEPT_HERE`,
    placed remotely (the default `RemotePlacement()`); a tool with a placement of its own keeps
    it."""
    registry = catalog.registry
    for registration in catalog.view.inherited.values():  # every tool but `run_code`
        definition = registration.definition
        if (
            definition.remote is None
            and definition.is_concurrency_safe not in (None, False)
            and definition.name not in KEPT_HERE
        ):
            placed = replace(definition, remote=RemotePlacement())
            registry, _ = registry.register(placed, registration.scope, shadow=True)
    return registry.catalog(catalog.scope)
