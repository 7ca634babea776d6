"""The supervisor every command runs under: `python -I -S _supervisor.py POLICY -- ARGV...`.

A standalone script (standard library and the sibling `_landlock` only; it starts for every
command). It makes itself a child subreaper, starts the command (confined by Landlock first
when the JSON policy asks), tells the runner on the policy's status pipe whether it started,
forwards SIGTERM and SIGINT to it, and when the command ends, on SIGUSR1 or when the runner
dies, kills every descendant left (orphans re-parent to it) with SIGKILL until none is left.
It then ends as the command did: the same exit code, or death by the same signal.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys

TYPE_CHECKING = False  # typing is not imported: it would cost every command's start
if TYPE_CHECKING:
    from typing import Any

_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36
_FORWARDED = (signal.SIGTERM, signal.SIGINT)
_WATCHED = {signal.SIGCHLD, signal.SIGUSR1, *_FORWARDED}
STATUS_OK = b"ok"
"""What the supervisor writes on the status pipe once the command has started."""


def _start(
    argv: list[str], landlock: dict[str, Any] | None, mask: set[int | signal.Signals]
) -> int:
    """Fork and exec the command; its pid, or OSError with the reason it did not start."""
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid == 0:  # the child: nothing here may return
        os.close(read_end)
        try:
            for number in (signal.SIGPIPE, signal.SIGXFSZ):  # Python ignores them: undo
                signal.signal(number, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            if landlock is not None:
                _confine(landlock)
            os.execvp(argv[0], argv)
        except BaseException as error:
            os.write(write_end, _reason(argv[0], error).encode("utf-8", "replace"))
        os._exit(127)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as failures:
        reason = failures.read()
    if reason:
        os.waitpid(pid, 0)
        raise OSError(0, reason.decode("utf-8", "replace"))
    return pid


def _confine(policy: dict[str, Any]) -> None:
    """Apply the Landlock policy to this (child) process; the sibling file does the work."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if TYPE_CHECKING:
        from toolfx.interpreters import _landlock  # noqa: PLC0415
    else:
        import _landlock  # noqa: PLC0415  # as a top-level module: toolfx is not imported

    _landlock.confine(
        policy["writable"], policy["read_only"], policy["hidden"], network=policy["network"]
    )


def _reason(program: str, error: BaseException) -> str:
    if isinstance(error, OSError) and error.errno:
        return f"program {program!r}: {error.strerror}"
    return f"the sandbox could not be applied: {error}"


def _descendants(ancestor: int) -> list[int]:
    """Every live process below `ancestor`, from the parent links in /proc."""
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as stat:
                    fields = stat.read().rpartition(b")")[2].split()
            except OSError:
                continue  # ended while listed
            if fields[0] != b"Z":
                parents[int(name)] = int(fields[1])
    found, frontier = [], [ancestor]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, of in parents.items() if of == parent]
        found += children
        frontier += children
    return found


def _kill(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except ProcessLookupError:
        return  # it has ended already


def _sweep(command: int, status: int | None) -> int:
    """SIGKILL every descendant until no child is left; the command's wait status."""
    me = os.getpid()
    while True:
        for pid in _descendants(me):
            _kill(pid, signal.SIGKILL)
        try:
            pid, ended = os.waitpid(-1, 0)
        except ChildProcessError:
            break  # no child: no descendant either (orphans re-parent to this subreaper)
        if pid == command:
            status = ended
    return status if status is not None else signal.SIGKILL  # a raw wait status: killed


def _supervise(command: int) -> int:
    """Wait for the command, forwarding TERM and INT; SIGUSR1 or the runner's death end it."""
    while True:
        received = signal.sigwaitinfo(_WATCHED)
        if received.si_signo in _FORWARDED:
            _kill(command, received.si_signo)
        elif received.si_signo == signal.SIGUSR1:
            return _sweep(command, None)
        while True:  # SIGCHLD, or a signal that came with one: reap what ended
            try:
                pid, ended = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return _sweep(command, None)
            if pid == 0:
                break
            if pid == command:
                return _sweep(command, ended)


def _end_as(status: int) -> None:
    """Exit with the command's code, or die of the signal that ended it."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the command dumped core already
        if number != signal.SIGKILL:
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {number})
        os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(os.waitstatus_to_exitcode(status))


def main(arguments: list[str]) -> None:
    """Run the command after `--` under the policy given as the first argument."""
    policy = json.loads(arguments[0])
    argv = arguments[arguments.index("--") + 1 :]
    libc = ctypes.CDLL(None, use_errno=True)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGUSR1, 0, 0, 0)
    if os.getppid() != policy["parent"]:
        os._exit(125)  # the runner is already gone: run nothing
    os.set_inheritable(policy["status_fd"], False)  # the command must not hold it open
    with os.fdopen(policy["status_fd"], "wb", buffering=0) as status:
        try:
            command = _start(argv, policy["landlock"], mask)
        except OSError as error:
            status.write(str(error.strerror).encode("utf-8", "replace"))
            os._exit(125)
        status.write(STATUS_OK)
    _end_as(_supervise(command))


if __name__ == "__main__":
    main(sys.argv[1:])
