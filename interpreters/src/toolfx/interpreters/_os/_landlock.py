"""Landlock through ctypes: the ABI probe and the rules that confine the calling thread for good.

Standard library only: the supervisor script loads this file as a top-level module before it
starts a command, so it must not import toolfx. Landlock only allows: every access right the
ABI knows is handled, and rights are granted on folders (beneath) and files. To keep a path out
of reach (a hidden secret, a read-only folder inside a writable one), the grant on an ancestor
is split into grants on each entry beside the path, level by level. The split is the safe side:
entries made later directly in a split folder get no grant (a new file right in the workspace
root is refused when `.git` is read-only there; in its subfolders it is not).
"""

from __future__ import annotations

import ctypes
import os
import stat

__all__ = ["abi_version", "confine", "covering"]

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same number on every arch
_VERSION_QUERY = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_PR_SET_NO_NEW_PRIVS, _PR_CAPBSET_DROP = 38, 24

_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_REMOVE_DIR, _REMOVE_FILE, _MAKE_CHAR, _MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
_MAKE_REG, _MAKE_SOCK, _MAKE_FIFO, _MAKE_BLOCK = 1 << 8, 1 << 9, 1 << 10, 1 << 11
_MAKE_SYM, _REFER, _TRUNCATE, _IOCTL_DEV = 1 << 12, 1 << 13, 1 << 14, 1 << 15
_FS_BY_ABI = (0, (1 << 13) - 1, (1 << 14) - 1, (1 << 15) - 1, (1 << 15) - 1, (1 << 16) - 1)
"""Every filesystem right each ABI version knows (index: the version, capped at the last)."""
_FILE_ONLY = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV
_READ = _EXECUTE | _READ_FILE | _READ_DIR
_WRITE = _WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE_DIR | _MAKE_REG | _MAKE_SOCK
_WRITE |= _MAKE_FIFO | _MAKE_SYM | _REFER | _TRUNCATE  # no device nodes
_BIND_TCP, _CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
"""Devices a confined command may write (and ioctl), as every shell redirection expects."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _call(number: int, *args: object) -> int:
    result = int(_libc.syscall(number, *args))
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))
    return result


def abi_version() -> int:
    """The Landlock ABI version of this kernel; 0 when Landlock is missing or turned off."""
    try:
        return _call(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_VERSION_QUERY))
    except OSError:
        return 0


def _below(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def covering(root: str, excluded: tuple[str, ...]) -> list[str]:
    """Paths whose trees together hold everything below `root` but nothing below `excluded`."""
    inside = tuple(path for path in excluded if _below(path, root))
    if not inside:
        return [root]
    if root in inside:
        return []
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []  # a folder that cannot be listed cannot be split: grant none of it
    found: list[str] = []
    for name in names:
        entry = os.path.join(root, name)
        if not os.path.islink(entry):  # a link's target is granted (or not) where it lives
            found += covering(entry, inside)
    return found


def _with_targets(paths: list[str]) -> tuple[str, ...]:
    """Each path and where it resolves to: `covering` skips symlinks, so a secret reached
    through one (a linked `~/.ssh`, a home below a linked folder) is excluded where it lives."""
    return tuple(dict.fromkeys(found for path in paths for found in (path, os.path.realpath(path))))


def _grant(ruleset: int, path: str, access: int) -> None:
    """Allow `access` beneath `path` (only the file rights when it is not a folder)."""
    try:
        fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return  # gone since it was listed: nothing to grant
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            access &= _FILE_ONLY
        rule = _PathBeneath(access, fd)
        _call(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0))
    finally:
        os.close(fd)


def _drop_capabilities() -> None:
    """Empty the bounding set, so that root's next exec starts without capabilities."""
    last = int(open("/proc/sys/kernel/cap_last_cap").read())  # noqa: SIM115
    for capability in range(last + 1):
        _libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0)


def confine(writable: list[str], read_only: list[str], hidden: list[str], *, network: bool) -> None:
    """Confine this thread and what it execs: read all but `hidden`, write only `writable`.

    Below `writable`, `read_only` and `hidden` are not writable; TCP bind and connect are
    refused unless `network` (below ABI 4, which cannot refuse them, that is an OSError);
    signals and abstract sockets outside the domain are refused where the ABI scopes them.
    Raises OSError if any step fails: then nothing may be run.
    """
    abi = abi_version()
    if abi < 1:
        raise OSError(0, "Landlock is not available on this kernel")
    if abi < 4 and not network:
        raise OSError(0, f"Landlock ABI {abi} cannot turn the network off (it needs ABI 4)")
    fs = _FS_BY_ABI[min(abi, len(_FS_BY_ABI) - 1)]
    net = 0 if network else _BIND_TCP | _CONNECT_TCP
    scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= 6 else 0
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    attr = _RulesetAttr(fs, net, scoped)
    ruleset = _call(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    try:
        hidden_t = _with_targets(hidden)
        closed = hidden_t + _with_targets(read_only)
        for path in covering("/", hidden_t):
            _grant(ruleset, path, _READ & fs)
        for folder in writable:
            for path in covering(folder, closed):
                _grant(ruleset, path, (_READ | _WRITE) & fs)
        for device in _DEVICES:
            _grant(ruleset, device, (_READ | _WRITE_FILE | _TRUNCATE | _IOCTL_DEV) & fs)
        if os.geteuid() == 0:
            _drop_capabilities()
        if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot set no_new_privs")
        _call(_RESTRICT_SELF, ruleset, ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
