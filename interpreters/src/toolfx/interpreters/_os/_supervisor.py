"""The supervisor every command runs under: `python -I -S _supervisor.py POLICY -- ARGV...`.

A standalone script (standard library and the sibling `_landlock` only; it starts for every
command). It starts the command (confined by Landlock first when the JSON policy asks), tells
the runner on the policy's status pipe whether it started, forwards SIGTERM and SIGINT to it,
and when the command ends, on SIGUSR1 or when the runner dies, ends every process the command
left. It then ends as the command did: the same exit code, or death by the same signal.

Where it can, the supervisor gives the command a PID namespace of its own (see
`_own_pid_namespace`): its first process is a tiny init forked from the supervisor (it execs
nothing) that starts the command, forwards the signals, reaps orphans and, once the command has
ended, reports its status and exits, and the kernel then kills every process left in the
namespace. That init dies with the supervisor (PR_SET_PDEATHSIG=SIGKILL), so killing or
stopping the supervisor frees nothing: a command cannot even see it. The init rather than the
command is pid 1 because a pid 1 ignores every signal it has no handler for (a command's own
`kill $$` or the runner's SIGTERM would do nothing); signals sent to the init are blocked and
taken with sigwaitinfo, so they reach it. Where no namespace can be made (no CAP_SYS_ADMIN and
no user namespaces), the supervisor makes itself a child subreaper, runs the command directly
and kills every descendant it finds in /proc (orphans re-parent to it) with SIGKILL until none
is left; then a process that leaves the command's session and kills or stops the supervisor
(nothing prevents it unconfined, or under Landlock below ABI 6, which cannot scope signals)
outlives the call.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import resource
import signal
import sys

TYPE_CHECKING = False  # typing is not imported: it would cost every command's start
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_PR_SET_PDEATHSIG, _PR_SET_CHILD_SUBREAPER = 1, 36
_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWPID = 0x20000, 0x10000000, 0x20000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 2, 4, 8, 1 << 14, 1 << 18
_FORWARDED = (signal.SIGTERM, signal.SIGINT)
_ORPHANED = signal.SIGUSR2
"""The death signal: the thread that started the supervisor ended (maybe not its process)."""
_WATCHED = {signal.SIGCHLD, signal.SIGUSR1, _ORPHANED, *_FORWARDED}
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
        from toolfx.interpreters._os import _landlock  # noqa: PLC0415
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


def _leave(command: int, status: int | None) -> int:
    """The command's wait status: the init's exit makes the kernel kill the namespace's rest."""
    del command
    return status if status is not None else signal.SIGKILL


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


def _told_to_end(number: int, runner: int) -> bool:
    """Whether `number` ends the command now: SIGUSR1 from the runner, or the runner's death.

    The death signal comes when the runner's thread that started the supervisor ends, which
    may be a worker thread of a live runner (trio's thread cache, after 10 s idle): only a new
    parent means the runner itself is gone.
    """
    return number == signal.SIGUSR1 or (number == _ORPHANED and os.getppid() != runner)


def _supervise(command: int, finish: Callable[[int, int | None], int], runner: int) -> int:
    """Wait for the command, forwarding TERM and INT; SIGUSR1 or the runner's death end it."""
    while True:
        received = signal.sigwaitinfo(_WATCHED)
        if received.si_signo in _FORWARDED:
            _kill(command, received.si_signo)
        elif _told_to_end(received.si_signo, runner):
            return finish(command, None)
        while True:  # SIGCHLD, or a signal that came with one: reap what ended
            try:
                pid, ended = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return finish(command, None)
            if pid == 0:
                break
            if pid == command:
                return finish(command, ended)


def _own_pid_namespace(libc: Any) -> bool:
    """Make this process's next child the pid 1 of a new PID namespace; whether it could.

    With CAP_SYS_ADMIN (root) a PID namespace alone; otherwise also a user namespace that maps
    only this user and group to themselves (so files keep their owner and nothing gains rights
    outside). False where neither is allowed: the caller falls back to the /proc sweep.
    """
    if libc.unshare(_CLONE_NEWPID) == 0:
        return True
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWPID) != 0:
        return False
    for name, line in (
        ("setgroups", "deny"),
        ("uid_map", f"{uid} {uid} 1"),
        ("gid_map", f"{gid} {gid} 1"),
    ):
        with open(f"/proc/self/{name}", "w") as mapping:
            mapping.write(line)
    return True


def _own_proc(libc: Any) -> None:
    """Mount the namespace's own /proc, so the command's pids and /proc agree (and the machine's
    other processes are out of its sight); where mounts are not allowed, /proc stays as it was."""
    if libc.unshare(_CLONE_NEWNS) != 0:
        return
    if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) == 0:  # keep it to this one
        libc.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None)


def _begin(
    argv: list[str], landlock: dict[str, Any] | None, mask: set[int | signal.Signals], status: Any
) -> int:
    """Start the command and tell the runner on `status` (then closed); exits 125 if it cannot."""
    try:
        command = _start(argv, landlock, mask)
    except OSError as error:
        status.write(str(error.strerror).encode("utf-8", "replace"))
        os._exit(125)
    status.write(STATUS_OK)
    status.close()
    return command


def _init(lifeline: int, report: int, libc: Any, begin: Callable[[], int]) -> None:
    """The namespace's pid 1: start the command, supervise it, report its wait status, exit."""
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    os.set_blocking(lifeline, False)
    try:
        if os.read(lifeline, 1) == b"":
            os._exit(125)  # the supervisor died before the death signal was set: run nothing
    except BlockingIOError:
        pass  # the supervisor still holds the other end: it lives
    _own_proc(libc)
    os.write(report, str(_supervise(begin(), _leave, 0)).encode())
    os._exit(0)


def _contain(init: int, report: int, runner: int) -> int:
    """Forward TERM and INT to the init, SIGKILL it when told to end; the command's wait status."""
    while True:
        received = signal.sigwaitinfo(_WATCHED)
        if received.si_signo in _FORWARDED:
            _kill(init, received.si_signo)
        elif _told_to_end(received.si_signo, runner):
            _kill(init, signal.SIGKILL)  # the kernel then kills the whole namespace
        pid, ended = os.waitpid(init, os.WNOHANG)
        if pid == init:  # the namespace is empty once its init has been reaped
            reported = os.read(report, 32)
            return int(reported) if reported else ended


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
    libc.prctl(_PR_SET_PDEATHSIG, _ORPHANED, 0, 0, 0)
    if os.getppid() != policy["parent"]:
        os._exit(125)  # the runner is already gone: run nothing
    os.set_inheritable(policy["status_fd"], False)  # the command must not hold it open
    status = os.fdopen(policy["status_fd"], "wb", buffering=0)
    begin = functools.partial(_begin, argv, policy["landlock"], mask, status)
    try:
        namespaced = _own_pid_namespace(libc)
    except OSError as error:
        status.write(f"no PID namespace could be set up: {error}".encode("utf-8", "replace"))
        os._exit(125)
    if not namespaced:
        _end_as(_supervise(begin(), _sweep, policy["parent"]))
    lifeline, alive = os.pipe2(os.O_CLOEXEC)
    report, reporting = os.pipe2(os.O_CLOEXEC)
    init = os.fork()
    if init == 0:  # pid 1 of the new namespace: nothing here may return
        try:
            os.close(alive)
            os.close(report)
            _init(lifeline, reporting, libc, begin)
        finally:
            os._exit(125)
    os.close(lifeline)
    os.close(reporting)
    status.close()
    _end_as(_contain(init, report, policy["parent"]))


if __name__ == "__main__":
    main(sys.argv[1:])
