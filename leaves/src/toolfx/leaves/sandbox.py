"""The `Sandbox` setting of the bash leaf, and the confinement it asks of the process runner.

With a sandbox, a command writes only in the workspace (not its `.git/` nor the state folder),
`extra_writable` folders and its private temp folder, reads everything but the `hidden`
secrets, does not see the `hidden_variables` of the environment (API keys, tokens...), and has
no network unless `network`. `auto` takes bubblewrap, else Landlock, whichever
the runner can enforce; with neither (or without the mechanism asked for) the sandbox is
unavailable, and every command asks, saying why. A runner may still refuse a confinement it
reports but cannot honour in full (Landlock below ABI 4 cannot turn the network off): the call
then fails with the runner's reason and nothing runs.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, final

from toolfx.core.runtime import Confinement, SandboxMechanism, SandboxMode

__all__ = [
    "DEFAULT_HIDDEN",
    "DEFAULT_HIDDEN_VARIABLES",
    "Confined",
    "Sandbox",
    "SandboxUnavailable",
    "sandbox_confinement",
]


DEFAULT_HIDDEN: Final = (
    "~/.ssh",
    "~/.aws",
    "~/.gnupg",
    "~/.config/gcloud",
    "~/.azure",
    "~/.kube",
    "~/.docker/config.json",
    "~/.netrc",
    "~/.git-credentials",
    "~/.npmrc",
    "~/.pypirc",
    "~/.config/gh",
    "~/.config/hub",
    "~/.cargo/credentials.toml",
    "~/.gem/credentials",
    "~/.vault-token",
    "~/.password-store",
    "~/.local/share/keyrings",
    "~/.terraform.d/credentials.tfrc.json",
)
"""Secrets no command may read: `~` is the home folder the sandbox is given."""

DEFAULT_HIDDEN_VARIABLES: Final = (
    "*API_KEY*",
    "*_KEY",
    "*TOKEN*",
    "*SECRET*",
    "*PASSWORD*",
    "*PASSWD*",
    "*CREDENTIAL*",
    "*_AUTH",
    "*_AUTH_*",
    "AWS_*",
    "AZURE_*",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
)
"""Environment variables no command sees (name patterns, `*` any text, any case)."""

_PREFERRED: Final[tuple[SandboxMechanism, ...]] = ("bwrap", "landlock")
"""The order `auto` tries the mechanisms in: bubblewrap also hides the network entirely."""


@final
@dataclass(frozen=True, slots=True)
class Sandbox:
    """How bash commands are confined; the default hides the usual secrets, network off."""

    mode: SandboxMode = "auto"
    """The mechanism: `auto` (bubblewrap, else Landlock), one of them, or `off` (unconfined)."""
    home: str | None = None
    """The home folder `~` stands for in `hidden` (absolute); None: `~` patterns cannot hide."""
    hidden: tuple[str, ...] = DEFAULT_HIDDEN
    """Files and folders no command may read or list: absolute, or below `~`. The runner hides
    each where it resolves to as well, so a secret reached through a symlink stays hidden."""
    network: bool = False
    """Whether commands may use the network. Off: under bubblewrap no network at all; under
    Landlock (ABI 4 or later, else unavailable) no TCP connect nor bind, while UDP and Unix
    sockets stay open."""
    extra_writable: tuple[str, ...] = ()
    """Absolute folders commands may write besides the workspace and their temp folder."""
    hidden_variables: tuple[str, ...] = DEFAULT_HIDDEN_VARIABLES
    """Name patterns (`*` any text, any case) of environment variables commands do not see."""


@final
@dataclass(frozen=True, slots=True)
class Confined:
    """The confinement to give each command, and how it is named to the user."""

    confinement: Confinement

    @property
    def shown(self) -> str:
        """The mechanism and the network setting, in a few words."""
        network = "network on" if self.confinement.network else "no network"
        return f"sandboxed by {self.confinement.mechanism}, {network}"


@final
@dataclass(frozen=True, slots=True)
class SandboxUnavailable:
    """No sandbox can be had: commands run unconfined and each asks first, with this reason."""

    reason: str


def sandbox_confinement(
    sandbox: Sandbox,
    root: str,
    state_dir: str | None,
    available: Iterable[SandboxMechanism],
) -> Confined | SandboxUnavailable | None:
    """The confinement for commands in the workspace `root`; None when the sandbox is off."""
    if sandbox.mode == "off":
        return None
    have = frozenset(available)
    wanted = _PREFERRED if sandbox.mode == "auto" else (sandbox.mode,)
    mechanism = next((name for name in wanted if name in have), None)
    if mechanism is None:
        return SandboxUnavailable(_missing(sandbox.mode, have))
    hidden = _hidden(sandbox)
    if isinstance(hidden, SandboxUnavailable):
        return hidden
    writable = (root, *sandbox.extra_writable)
    if bad := [path for path in writable if not posixpath.isabs(path)]:
        return SandboxUnavailable(f"a writable folder is not an absolute path: {bad[0]!r}")
    state = () if state_dir is None else (state_dir,)
    read_only = (posixpath.join(root, ".git"), *state)
    confinement = Confinement(
        mechanism, writable, read_only, hidden, sandbox.network, sandbox.hidden_variables
    )
    return Confined(confinement)


def _missing(mode: SandboxMode, have: frozenset[SandboxMechanism]) -> str:
    if mode == "auto":
        return "no sandbox (bubblewrap or Landlock) is available on this machine"
    others = f" (available: {', '.join(sorted(have))})" if have else ""
    return f"the {mode} sandbox asked for is not available on this machine{others}"


def _hidden(sandbox: Sandbox) -> tuple[str, ...] | SandboxUnavailable:
    """The hidden paths made absolute against the home folder."""
    home = sandbox.home
    if home is not None and not posixpath.isabs(home):
        return SandboxUnavailable(f"the home folder is not an absolute path: {home!r}")
    found: list[str] = []
    for pattern in sandbox.hidden:
        path = pattern
        if pattern == "~" or pattern.startswith("~/"):
            if home is None:
                return SandboxUnavailable(f"no home folder was given to hide {pattern}")
            path = posixpath.join(home, pattern[2:])
        if not posixpath.isabs(path):
            return SandboxUnavailable(f"a hidden path is not absolute nor below ~: {pattern!r}")
        found.append(posixpath.normpath(path))
    return tuple(found)
