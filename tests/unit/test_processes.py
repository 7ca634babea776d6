"""The process runners: real ones under sync, anyio-asyncio and anyio-trio; the scripted one."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Literal, TypeVar, final

import anyio
import anyio.lowlevel
import pytest

from tests.support import SAFETY_NET, cancel_when, unmarked_soon
from toolfx.core.runtime import (
    CancelSignal,
    CapturedOutput,
    Confinement,
    Description,
    OutputSink,
    OutputStream,
    ProcessError,
    ProcessOutcome,
    ProcessSpec,
    Runtime,
)
from toolfx.interpreters._os.sync_processes import SyncProcessRunner
from toolfx.interpreters._process_common import READ_CHUNK
from toolfx.interpreters.anyio import AnyioProcessRunner, AnyioRuntime, run_anyio
from toolfx.interpreters.sync import SyncRuntime, run_sync
from toolfx.interpreters.testing import DeterministicInterpreter, ScriptedProcess, ScriptedProcesses

T = TypeVar("T")

Interpreter = Literal["sync", "asyncio", "trio"]

GRACE = 0.3
"""The kill grace of the real runs: short, so that the suite stays fast."""


@pytest.fixture(params=["sync", "asyncio", "trio"])
def interpreter(request: pytest.FixtureRequest) -> Interpreter:
    """Every real-runner test runs under the sync interpreter and under anyio on both backends."""
    name: Interpreter = request.param
    return name


def bash(
    command: str, *, timeout: float = 10.0, output_limit: int = 10_000, cwd: str = "/"
) -> ProcessSpec:
    return ProcessSpec(("/bin/bash", "-c", command), cwd, timeout, output_limit, kill_grace=GRACE)


def run(
    interpreter: Interpreter,
    spec: ProcessSpec,
    signal: CancelSignal | None = None,
    output: OutputSink | None = None,
) -> ProcessOutcome:
    """Run `spec` through `runtime.processes` of the interpreter's default runtime."""
    watched = CancelSignal() if signal is None else signal

    async def program(runtime: Runtime) -> ProcessOutcome:
        return await runtime.processes.run(spec, watched, output)

    if interpreter == "sync":
        return run_sync(Description(program))
    return run_anyio(Description(program), interpreter)


# real runners -----------------------------------------------------------------------------------


def test_the_exit_code_and_the_two_streams_apart(interpreter: Interpreter) -> None:
    outcome = run(interpreter, bash("echo out; echo err >&2; exit 3"))
    assert (outcome.exit_code, outcome.signal) == (3, None)
    assert (outcome.stdout.data, outcome.stdout.total) == (b"out\n", 4)
    assert (outcome.stderr.data, outcome.stderr.total) == (b"err\n", 4)
    assert not outcome.timed_out
    assert not outcome.cancelled
    assert outcome.duration >= 0.0


def test_a_process_killed_by_a_signal_reports_the_signal(interpreter: Interpreter) -> None:
    outcome = run(interpreter, bash("echo before; kill -TERM $$; echo after"))
    assert (outcome.exit_code, outcome.signal) == (None, 15)
    assert outcome.stdout.data == b"before\n"
    assert not outcome.timed_out


def test_the_working_directory_and_the_environment(
    interpreter: Interpreter, tmp_path: Path
) -> None:
    spec = ProcessSpec(
        ("/bin/bash", "-c", 'pwd; echo "$ONLY"'),
        str(tmp_path),
        10.0,
        1000,
        env={"ONLY": "this", "PATH": "/usr/bin:/bin"},
    )
    assert run(interpreter, spec).stdout.data == f"{tmp_path}\nthis\n".encode()


def test_a_command_that_ignores_sigterm_dies_of_sigkill_with_its_children(
    interpreter: Interpreter,
) -> None:
    marker = f"toolfx-mark-{uuid.uuid4().hex}"
    outcome = run(
        interpreter, bash(f"trap '' TERM; (exec -a {marker} sleep 300) & wait", timeout=0.3)
    )
    assert outcome.timed_out
    assert not outcome.cancelled
    assert (outcome.exit_code, outcome.signal) == (None, 9)  # SIGTERM was ignored: KILL ended it
    assert unmarked_soon(marker)  # the sleep, which ignored SIGTERM as well


def test_a_command_that_obeys_sigterm_dies_of_it_at_the_timeout(interpreter: Interpreter) -> None:
    marker = f"toolfx-mark-{uuid.uuid4().hex}"
    outcome = run(interpreter, bash(f"(exec -a {marker} sleep 300) & wait", timeout=0.3))
    assert (outcome.exit_code, outcome.signal, outcome.timed_out) == (None, 15, True)
    assert unmarked_soon(marker)


def test_a_flood_is_bounded_and_counted_exactly_on_both_streams(interpreter: Interpreter) -> None:
    command = "head -c 100000000 /dev/zero & head -c 3000000 /dev/zero >&2; wait"
    outcome = run(interpreter, bash(command, output_limit=1000))
    assert outcome.exit_code == 0
    assert (len(outcome.stdout.data), outcome.stdout.total) == (1000, 100_000_000)
    assert outcome.stdout.lost == 100_000_000 - 1000
    assert (len(outcome.stderr.data), outcome.stderr.total) == (1000, 3_000_000)


@final
class Reads:
    """A sink keeping every read it is handed; a call before the last one ended fails."""

    def __init__(self, fail_on: int | None = None) -> None:
        self.reads: list[tuple[OutputStream, bytes]] = []
        self.busy = False
        self.fail_on = fail_on

    async def __call__(self, stream: OutputStream, data: bytes) -> None:
        """Keep one read (yielding in between on anyio, to let another call in if one could)."""
        assert not self.busy, "the sink was called again before its last call ended"
        self.busy = True
        try:
            if self.fail_on == len(self.reads):
                raise RuntimeError("the sink broke")
            self.reads.append((stream, data))
            if anyio_running():
                await anyio.lowlevel.checkpoint()
        finally:
            self.busy = False

    def of(self, stream: OutputStream) -> bytes:
        """Every byte handed for `stream`, in order."""
        return b"".join(data for name, data in self.reads if name == stream)


def anyio_running() -> bool:
    """Whether an event loop runs this code (the anyio runners), not the sync interpreter."""
    try:
        anyio.get_current_task()
    except RuntimeError:
        return False
    return True


def test_every_read_goes_to_the_sink_in_order_whatever_the_output_limit(
    interpreter: Interpreter,
) -> None:
    command = "seq 1 100000 & seq 1 50000 | tr 0-9 a-j >&2; wait"
    reads = Reads()
    outcome = run(interpreter, bash(command, output_limit=1000), output=reads)
    numbers = "".join(f"{n}\n" for n in range(1, 100_001)).encode()
    letters = "".join(f"{n}\n" for n in range(1, 50_001)).translate(
        str.maketrans("0123456789", "abcdefghij")
    )
    assert reads.of("stdout") == numbers
    assert reads.of("stderr") == letters.encode()
    assert outcome.stdout == CapturedOutput(numbers[:1000], len(numbers))
    assert outcome.stderr == CapturedOutput(letters.encode()[:1000], len(letters))


def test_stderr_on_the_stdout_pipe_is_one_stream_in_the_order_written(
    interpreter: Interpreter,
) -> None:
    command = "for i in $(seq 1 2000); do echo o$i; echo e$i >&2; done"
    spec = replace(bash(command), stderr_to_stdout=True)
    reads = Reads()
    outcome = run(interpreter, spec, output=reads)
    expected = "".join(f"o{i}\ne{i}\n" for i in range(1, 2001)).encode()
    assert {name for name, _ in reads.reads} == {"stdout"}
    assert reads.of("stdout") == expected
    assert outcome.stdout.total == len(expected)
    assert outcome.stderr == CapturedOutput(b"", 0)


def test_a_sink_that_raises_ends_the_run_and_leaves_nothing_running(
    interpreter: Interpreter,
) -> None:
    marker = f"toolfx-mark-{uuid.uuid4().hex}"
    command = f"echo first; (exec -a {marker} sleep 300) & wait"
    with pytest.raises((RuntimeError, ExceptionGroup)) as raised:
        run(interpreter, bash(command), output=Reads(fail_on=0))
    error = raised.value  # under anyio, in the task groups' exception group
    found = error.subgroup(RuntimeError) if isinstance(error, ExceptionGroup) else error
    assert isinstance(found, RuntimeError | ExceptionGroup)
    assert unmarked_soon(marker)


def test_a_cancelled_command_hands_over_what_it_wrote_before(
    interpreter: Interpreter, tmp_path: Path
) -> None:
    signal = CancelSignal()
    ready = tmp_path / "ready"
    cancel_when(signal, ready.exists, "stop")
    reads = Reads()
    outcome = run(interpreter, bash(f"seq 1 30000; : > {ready}; sleep 300"), signal, reads)
    assert outcome.cancelled
    assert reads.of("stdout") == "".join(f"{n}\n" for n in range(1, 30_001)).encode()


@pytest.mark.parametrize("sink", [False, True])
def test_an_endless_flood_is_stopped_at_its_timeout(interpreter: Interpreter, sink: bool) -> None:
    reads = 0

    async def count(stream: OutputStream, data: bytes) -> None:
        nonlocal reads
        reads += 1

    outcome = run(interpreter, bash("yes", timeout=0.3), output=count if sink else None)
    assert (outcome.timed_out, outcome.exit_code, outcome.signal) == (True, None, 15)
    assert outcome.stdout.total > 0
    assert (reads > 0) is sink


def test_a_signal_set_from_another_thread_stops_the_command(
    interpreter: Interpreter, tmp_path: Path
) -> None:
    signal = CancelSignal()
    ready = tmp_path / "ready"
    cancel_when(signal, ready.exists, "stop")  # once it runs: a cancel before would run nothing
    outcome = run(interpreter, bash(f": > {ready}; sleep 300"), signal)
    assert outcome.cancelled
    assert not outcome.timed_out
    assert outcome.signal == 15


def test_a_signal_set_before_the_start_runs_nothing(
    interpreter: Interpreter, tmp_path: Path
) -> None:
    signal = CancelSignal()
    signal.cancel()
    outcome = run(interpreter, bash(f"touch {tmp_path}/ran"), signal)
    assert (outcome.cancelled, outcome.exit_code, outcome.signal) == (True, None, None)
    assert outcome.duration == 0.0
    assert not (tmp_path / "ran").exists()


def test_a_process_outside_the_group_holding_the_pipes_does_not_hang_the_run(
    interpreter: Interpreter,
) -> None:
    marker = f"toolfx-mark-{uuid.uuid4().hex}"
    outcome = run(
        interpreter, bash(f"setsid bash -c 'exec -a {marker} sleep 300' & sleep 30", timeout=0.3)
    )
    assert outcome.timed_out
    assert (outcome.exit_code, outcome.signal) == (None, 15)
    assert unmarked_soon(marker)  # it held the pipes; it ended with the run, not at its 300 s


@pytest.mark.parametrize(
    ("spec", "culprit"),
    [
        (ProcessSpec(("/bin/true",), "/no/such/directory", 10.0, 100), "working directory"),
        (ProcessSpec(("/no/such/program",), "/", 10.0, 100), "program"),
        (ProcessSpec((), "/", 10.0, 100), "empty"),
    ],
)
def test_a_command_that_cannot_start_is_a_process_error(
    interpreter: Interpreter, spec: ProcessSpec, culprit: str
) -> None:
    with pytest.raises(ProcessError) as raised:
        run(interpreter, spec)
    assert culprit in raised.value.reason
    assert raised.value.argv == spec.argv


def test_each_call_has_a_private_temp_folder_removed_after_it(interpreter: Interpreter) -> None:
    outcome = run(interpreter, bash('echo "$TMPDIR $TMP $TEMP"; touch "$TMPDIR/left"'))
    temp, tmp, temp_again = outcome.stdout.data.decode().split()
    assert temp == tmp == temp_again
    assert Path(temp).name.startswith("toolfx-call-")
    assert not Path(temp).exists()
    other = run(interpreter, bash('echo "$TMPDIR"')).stdout.data.decode().strip()
    assert other != temp


def test_a_confinement_the_machine_cannot_enforce_is_refused_before_running(
    interpreter: Interpreter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolfx.interpreters._os import launch as process_launch

    monkeypatch.setattr(process_launch, "available_sandboxes", frozenset)
    confined = Confinement("landlock", (str(tmp_path),))
    spec = ProcessSpec(("/bin/bash", "-c", f"touch {tmp_path}/ran"), "/", 10.0, 100)
    with pytest.raises(ProcessError, match="the landlock sandbox is not available"):
        run(interpreter, replace(spec, confinement=confined))
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize("abi", [1, 3])
def test_landlock_below_abi_4_refuses_a_confinement_with_the_network_off(
    interpreter: Interpreter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, abi: int
) -> None:
    from toolfx.interpreters._os import _landlock
    from toolfx.interpreters._os import launch as process_launch

    monkeypatch.setattr(process_launch, "available_sandboxes", lambda: frozenset({"landlock"}))
    monkeypatch.setattr(_landlock, "abi_version", lambda: abi)
    confined = Confinement("landlock", (str(tmp_path),), network=False)
    spec = ProcessSpec(("/bin/bash", "-c", f"touch {tmp_path}/ran"), "/", 10.0, 100)
    why = f"cannot turn the network off on this kernel \\(Landlock ABI {abi};"
    with pytest.raises(ProcessError, match=why):
        run(interpreter, replace(spec, confinement=confined))
    assert not (tmp_path / "ran").exists()


def test_the_real_runners_report_what_the_machine_enforces() -> None:
    from toolfx.interpreters._os.launch import available_sandboxes

    assert SyncProcessRunner().sandboxes() == available_sandboxes()
    assert AnyioProcessRunner().sandboxes() == available_sandboxes()
    assert available_sandboxes() <= {"landlock", "bwrap"}


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_cancelled_anyio_run_kills_the_group_before_it_leaves(
    backend: str, tmp_path: Path
) -> None:
    marker = f"toolfx-mark-{uuid.uuid4().hex}"
    ready = tmp_path / "ready"

    async def main() -> None:
        async with anyio.create_task_group() as group:

            async def run_command() -> None:
                command = f"trap '' TERM; (exec -a {marker} sleep 300) & : > {ready}; wait"
                await AnyioProcessRunner().run(bash(command), CancelSignal())

            group.start_soon(run_command)
            with anyio.fail_after(SAFETY_NET):  # only against a hang
                while not ready.exists():
                    await anyio.sleep(0.01)
            group.cancel_scope.cancel()  # the run is cancelled once the command is under way

    anyio.run(main, backend=backend)
    assert ready.exists()
    assert unmarked_soon(marker)


def test_each_runtime_has_its_runner_unless_given_one() -> None:
    given = SyncProcessRunner()
    assert isinstance(SyncRuntime().processes, SyncProcessRunner)
    assert SyncRuntime(processes=given).processes is given
    assert isinstance(AnyioRuntime().processes, AnyioProcessRunner)
    assert AnyioRuntime(processes=given).processes is given


# the scripted runner ----------------------------------------------------------------------------


def perform(program: Callable[[Runtime], Awaitable[T]], interpreter: DeterministicInterpreter) -> T:
    async def wrapper(runtime: Runtime) -> T:
        return await program(runtime)

    return interpreter.run(Description(wrapper))


def scripted(
    script: ScriptedProcess, spec: ProcessSpec, signal: CancelSignal | None = None
) -> tuple[ProcessOutcome, float]:
    """Run `spec` against a table with `script` for it; the outcome and the virtual time after."""
    table = ScriptedProcesses([(spec.argv, script)])

    async def program(runtime: Runtime) -> tuple[ProcessOutcome, float]:
        outcome = await runtime.processes.run(spec, signal or CancelSignal())
        return outcome, runtime.now()

    return perform(program, DeterministicInterpreter(processes=table))


def virtual(command: str, *, timeout: float = 60.0, kill_grace: float = 2.0) -> ProcessSpec:
    return ProcessSpec(("/bin/bash", "-c", command), "/work", timeout, 100, kill_grace=kill_grace)


def test_a_scripted_process_takes_its_duration_in_virtual_time() -> None:
    script = ScriptedProcess(stdout=b"built\n", stderr=b"warning\n", exit_code=2, duration=30.0)
    outcome, now = scripted(script, virtual("make"))
    assert now == 30.0
    assert outcome.duration == 30.0
    assert (outcome.exit_code, outcome.signal) == (2, None)
    assert (outcome.stdout.data, outcome.stderr.data) == (b"built\n", b"warning\n")
    assert not outcome.timed_out


def test_a_scripted_process_that_dies_of_a_signal() -> None:
    outcome, _ = scripted(ScriptedProcess(exit_signal=11), virtual("crash"))
    assert (outcome.exit_code, outcome.signal) == (None, 11)


@pytest.mark.parametrize(
    ("ignores_sigterm", "duration", "ending", "now"),
    [
        (False, 100.0, (None, 15), 10.0),  # dies of SIGTERM at the timeout
        (True, 100.0, (None, 9), 12.0),  # dies of SIGKILL a grace later
        (True, 11.0, (0, None), 11.0),  # ends by itself within the grace
    ],
)
def test_a_scripted_timeout(
    ignores_sigterm: bool, duration: float, ending: tuple[int | None, int | None], now: float
) -> None:
    script = ScriptedProcess(duration=duration, ignores_sigterm=ignores_sigterm)
    outcome, after = scripted(script, virtual("serve", timeout=10.0, kill_grace=2.0))
    assert (outcome.exit_code, outcome.signal) == ending
    assert outcome.timed_out
    assert not outcome.cancelled
    assert after == now
    assert outcome.duration == now


def test_a_scripted_process_is_cancelled_by_its_signal() -> None:
    spec = virtual("serve")
    table = ScriptedProcesses([("serve", ScriptedProcess(duration=100.0, ignores_sigterm=True))])

    async def program(runtime: Runtime) -> tuple[ProcessOutcome, float]:
        signal = CancelSignal()
        outcome = await runtime.deadline(5.0, signal, lambda: runtime.processes.run(spec, signal))
        return outcome, runtime.now()

    outcome, now = perform(program, DeterministicInterpreter(processes=table))
    assert (outcome.cancelled, outcome.timed_out, outcome.signal) == (True, False, 9)
    assert now == 7.0
    assert table.runs == (spec,)


def test_a_scripted_process_whose_signal_is_set_does_not_start() -> None:
    signal = CancelSignal()
    signal.cancel()
    table = ScriptedProcesses([("rm -rf /", ScriptedProcess())])

    async def program(runtime: Runtime) -> ProcessOutcome:
        return await runtime.processes.run(virtual("rm -rf /"), signal)

    outcome = perform(program, DeterministicInterpreter(processes=table))
    assert (outcome.cancelled, outcome.exit_code, outcome.signal) == (True, None, None)
    assert table.runs == ()


def test_scripted_output_is_bounded_and_counted_as_the_real_runners_do() -> None:
    spec = ProcessSpec(("/bin/bash", "-c", "noisy"), "/", 10.0, 30)
    outcome, _ = scripted(ScriptedProcess(stdout=b"x" * 100, stderr=b"y" * 10), spec)
    assert (outcome.stdout.data, outcome.stdout.total, outcome.stdout.lost) == (b"x" * 30, 100, 70)
    assert (outcome.stderr.data, outcome.stderr.total) == (b"y" * 10, 10)


def test_scripted_output_goes_to_the_sink_in_reads_of_at_most_a_chunk() -> None:
    script = ScriptedProcess(stdout=b"o" * (READ_CHUNK + 5), stderr=b"e" * 3)
    reads = Reads()

    async def program(runtime: Runtime) -> ProcessOutcome:
        return await runtime.processes.run(virtual("noisy"), CancelSignal(), reads)

    table = ScriptedProcesses([("noisy", script)])
    perform(program, DeterministicInterpreter(processes=table))
    assert [(name, len(data)) for name, data in reads.reads] == [
        ("stdout", READ_CHUNK),
        ("stdout", 5),
        ("stderr", 3),
    ]

    async def merged(runtime: Runtime) -> ProcessOutcome:
        spec = replace(virtual("noisy"), stderr_to_stdout=True)
        return await runtime.processes.run(spec, CancelSignal(), reads)

    reads.reads.clear()
    outcome = perform(merged, DeterministicInterpreter(processes=table))
    assert reads.reads[-1] == ("stdout", b"ooooo" + b"eee")  # one pipe: the bytes follow on
    assert (outcome.stdout.total, outcome.stderr.total) == (READ_CHUNK + 8, 0)


def test_scripts_match_in_order_by_command_argv_or_predicate() -> None:
    table = ScriptedProcesses(
        [
            ("ls", ScriptedProcess(stdout=b"by command")),
            (("/usr/bin/git", "status"), ScriptedProcess(stdout=b"by argv")),
            (lambda argv: argv[0] == "/usr/bin/git", ScriptedProcess(stdout=b"by predicate")),
            (("/usr/bin/git", "log"), ScriptedProcess(stdout=b"never reached")),
        ]
    )
    argvs = [("/bin/bash", "-c", "ls"), ("/usr/bin/git", "status"), ("/usr/bin/git", "log")]

    async def program(runtime: Runtime) -> list[bytes]:
        specs = [ProcessSpec(argv, "/", 10.0, 100) for argv in argvs]
        return [(await runtime.processes.run(s, CancelSignal())).stdout.data for s in specs]

    found = perform(program, DeterministicInterpreter(processes=table))
    assert found == [b"by command", b"by argv", b"by predicate"]
    assert [spec.argv for spec in table.runs] == argvs


def test_an_unscripted_command_is_a_process_error() -> None:
    async def program(runtime: Runtime) -> ProcessOutcome:
        return await runtime.processes.run(virtual("rm -rf /"), CancelSignal())

    with pytest.raises(ProcessError, match="no scripted process for 'rm -rf /'"):
        perform(program, DeterministicInterpreter())


def test_a_scripted_table_refuses_a_confinement_it_was_not_given() -> None:
    confined = replace(virtual("ls"), confinement=Confinement("bwrap", ("/work",)))
    table = ScriptedProcesses([("ls", ScriptedProcess())], sandboxes=("landlock",))
    assert table.sandboxes == {"landlock"}

    async def program(runtime: Runtime) -> ProcessOutcome:
        assert runtime.processes.sandboxes() == {"landlock"}
        return await runtime.processes.run(confined, CancelSignal())

    with pytest.raises(ProcessError, match="the bwrap sandbox is not available"):
        perform(program, DeterministicInterpreter(processes=table))
    assert table.runs == ()
    assert ScriptedProcesses().sandboxes == frozenset()


def test_a_scripted_run_records_its_confinement_in_the_trace() -> None:
    confinement = Confinement("bwrap", ("/work",), read_only=("/work/.git",), hidden=("/h",))
    table = ScriptedProcesses([("ls", ScriptedProcess())], sandboxes=("bwrap",))

    async def program(runtime: Runtime) -> ProcessOutcome:
        spec = replace(virtual("ls"), confinement=confinement)
        return await runtime.processes.run(spec, CancelSignal())

    interpreter = DeterministicInterpreter(processes=table)
    assert perform(program, interpreter).exit_code == 0
    (started, _) = [str(event) for event in interpreter.trace if "process" in str(event)]
    assert started.endswith(
        "'ls': started, confined by bwrap (writable /work; read-only /work/.git; hidden /h;"
        " network off)"
    )


def test_the_same_seed_gives_the_same_trace_of_processes() -> None:
    table = ScriptedProcesses(
        [
            ("fast", ScriptedProcess(duration=1.0)),
            ("slow", ScriptedProcess(duration=50.0, ignores_sigterm=True)),
        ]
    )

    async def program(runtime: Runtime) -> list[ProcessOutcome]:
        def start(command: str) -> Callable[[], Awaitable[ProcessOutcome]]:
            return lambda: runtime.processes.run(virtual(command, timeout=20.0), CancelSignal())

        return await runtime.gather([start("slow"), start("fast"), start("fast")], limit=3)

    def trace(seed: int) -> list[str]:
        interpreter = DeterministicInterpreter(seed, processes=table)
        perform(program, interpreter)
        return [str(event) for event in interpreter.trace]

    for seed in range(5):
        assert trace(seed) == trace(seed)
    processes = [line for line in trace(0) if " process " in line]
    assert len(processes) == 6
    assert any("'slow': signal 9, timed out" in line and "t=22" in line for line in processes)
