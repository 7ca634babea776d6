"""The deterministic interpreter and its in-memory doubles: virtual time, seeded interleavings.

The deterministic interpreter and its in-memory doubles: virtual time, seeded interleavings, faults
(crashes among them, with `MemoryJournal` as the store that dies), scripted processes,
`ScriptedCode`, a Code Mode engine running scripted programs (no worker), and `ScriptedRemote`,
a remote runner that plays the cluster (no cluster).
"""

from toolfx.interpreters.testing._errors import Crashed, Deadlock, DeterministicForeignAwaitError
from toolfx.interpreters.testing._faults import (
    CancelAt,
    CrashAt,
    Fault,
    HangAt,
    Mortal,
    RaiseAt,
    RaiseInto,
)
from toolfx.interpreters.testing._interpreter import DeterministicInterpreter, DeterministicRuntime
from toolfx.interpreters.testing._memory_files import MemoryFileSystem
from toolfx.interpreters.testing._memory_journal import CrashAtAppend, MemoryJournal
from toolfx.interpreters.testing._memory_spills import MemorySpills
from toolfx.interpreters.testing._scripted_code import (
    Pause,
    Rejected,
    Script,
    ScriptedCode,
    ScriptedSession,
)
from toolfx.interpreters.testing._scripted_processes import (
    ProcessMatcher,
    ScriptedProcess,
    ScriptedProcesses,
)
from toolfx.interpreters.testing._scripted_remote import ScriptedRemote, WorkerCrash
from toolfx.interpreters.testing._trace import TraceEvent

__all__ = [
    "CancelAt",
    "CrashAt",
    "CrashAtAppend",
    "Crashed",
    "Deadlock",
    "DeterministicForeignAwaitError",
    "DeterministicInterpreter",
    "DeterministicRuntime",
    "Fault",
    "HangAt",
    "MemoryFileSystem",
    "MemoryJournal",
    "MemorySpills",
    "Mortal",
    "Pause",
    "ProcessMatcher",
    "RaiseAt",
    "RaiseInto",
    "Rejected",
    "Script",
    "ScriptedCode",
    "ScriptedProcess",
    "ScriptedProcesses",
    "ScriptedRemote",
    "ScriptedSession",
    "TraceEvent",
    "WorkerCrash",
]
