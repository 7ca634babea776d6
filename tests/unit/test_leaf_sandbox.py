"""The `Sandbox` setting: which confinement it asks for, or why none can be had."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolfx.core.runtime import Confinement, SandboxMechanism
from toolfx.leaves.sandbox import (
    DEFAULT_HIDDEN,
    DEFAULT_HIDDEN_VARIABLES,
    Confined,
    Sandbox,
    SandboxUnavailable,
    sandbox_confinement,
)

HOME = "/home/ada"
BOTH: frozenset[SandboxMechanism] = frozenset({"landlock", "bwrap"})


def placed(sandbox: Sandbox, available: frozenset[SandboxMechanism] = BOTH) -> object:
    return sandbox_confinement(sandbox, "/ws", "/state/ws", available)


def test_off_asks_for_no_confinement() -> None:
    assert placed(Sandbox(mode="off")) is None


def test_auto_confines_the_workspace_with_git_and_state_read_only_and_secrets_hidden() -> None:
    found = placed(Sandbox(home=HOME, extra_writable=("/cache",)))
    assert isinstance(found, Confined)
    assert found.confinement == Confinement(
        "bwrap",
        ("/ws", "/cache"),
        ("/ws/.git", "/state/ws"),
        tuple(f"{HOME}/{pattern[2:]}" for pattern in DEFAULT_HIDDEN),
        network=False,
        hidden_variables=DEFAULT_HIDDEN_VARIABLES,
    )
    assert f"{HOME}/.ssh" in found.confinement.hidden
    assert found.shown == "sandboxed by bwrap, no network"


@given(st.frozensets(st.sampled_from(["landlock", "bwrap"])))
def test_auto_takes_bubblewrap_then_landlock_and_fails_closed_with_neither(
    available: frozenset[SandboxMechanism],
) -> None:
    found = placed(Sandbox(home=HOME), available)
    if not available:
        assert found == SandboxUnavailable(
            "no sandbox (bubblewrap or Landlock) is available on this machine"
        )
    else:
        assert isinstance(found, Confined)
        assert found.confinement.mechanism == ("bwrap" if "bwrap" in available else "landlock")


def test_an_explicit_mechanism_that_is_missing_is_unavailable_saying_what_is() -> None:
    found = placed(Sandbox(mode="bwrap", home=HOME), frozenset({"landlock"}))
    assert found == SandboxUnavailable(
        "the bwrap sandbox asked for is not available on this machine (available: landlock)"
    )
    landlock = placed(Sandbox(mode="landlock", home=HOME))
    assert isinstance(landlock, Confined)
    assert landlock.confinement.mechanism == "landlock"


def test_home_patterns_without_a_home_or_relative_paths_fail_closed() -> None:
    assert placed(Sandbox()) == SandboxUnavailable("no home folder was given to hide ~/.ssh")
    assert placed(Sandbox(home="ada")) == SandboxUnavailable(
        "the home folder is not an absolute path: 'ada'"
    )
    assert placed(Sandbox(hidden=("secrets",))) == SandboxUnavailable(
        "a hidden path is not absolute nor below ~: 'secrets'"
    )
    assert placed(Sandbox(hidden=(), extra_writable=("rel",))) == SandboxUnavailable(
        "a writable folder is not an absolute path: 'rel'"
    )
    absolute = placed(Sandbox(hidden=("/etc/shadow",), network=True))
    assert isinstance(absolute, Confined)
    assert (absolute.confinement.hidden, absolute.confinement.network) == (("/etc/shadow",), True)
