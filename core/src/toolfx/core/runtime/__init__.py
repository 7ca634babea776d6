"""The capabilities descriptions run over: the only suspension points, and Description itself.

The capabilities a description runs over (the only suspension points): Runtime, Description,
cancellation, files, processes, approvals, spills.
"""

from toolfx.core.runtime._cancel import CALLER_CANCELLED, CancelSignal
from toolfx.core.runtime._cell import AtomicCell
from toolfx.core.runtime._code import (
    HOST_EXCEPTIONS,
    CallsWaiting,
    ClockWanted,
    CodeEngine,
    CodeLimits,
    CodeProgram,
    CodeSession,
    HostCall,
    HostError,
    HostException,
    HostValue,
    LimitName,
    ProgramFailed,
    ProgramFailure,
    ProgramFinished,
    ProgramStep,
    SleepWanted,
)
from toolfx.core.runtime._combinators import gather, traverse
from toolfx.core.runtime._delegating import DelegatingRuntime
from toolfx.core.runtime._description import Description
from toolfx.core.runtime._files import FileError, FileErrorKind, FileKind, FileStat, FileSystem
from toolfx.core.runtime._interpreter import Interpreter
from toolfx.core.runtime._processes import (
    SANDBOX_MODES,
    CapturedOutput,
    Confinement,
    OutputSink,
    OutputStream,
    ProcessError,
    ProcessOutcome,
    ProcessRunner,
    ProcessSpec,
    SandboxMechanism,
    SandboxMode,
)
from toolfx.core.runtime._runtime import (
    ApprovalReply,
    ApprovalRequest,
    Cancelled,
    DefectReporter,
    ProgressEvent,
    ProgressReporter,
    RejectedWithFeedback,
    Runtime,
    deadline_reason,
    log_defect,
)
from toolfx.core.runtime._spills import SpillError, SpillLocation, SpillStore, SpillWriter
from toolfx.core.runtime._state_folder import spill_folder, state_folder

__all__ = [
    "CALLER_CANCELLED",
    "HOST_EXCEPTIONS",
    "SANDBOX_MODES",
    "ApprovalReply",
    "ApprovalRequest",
    "AtomicCell",
    "CallsWaiting",
    "CancelSignal",
    "Cancelled",
    "CapturedOutput",
    "ClockWanted",
    "CodeEngine",
    "CodeLimits",
    "CodeProgram",
    "CodeSession",
    "Confinement",
    "DefectReporter",
    "DelegatingRuntime",
    "Description",
    "FileError",
    "FileErrorKind",
    "FileKind",
    "FileStat",
    "FileSystem",
    "HostCall",
    "HostError",
    "HostException",
    "HostValue",
    "Interpreter",
    "LimitName",
    "OutputSink",
    "OutputStream",
    "ProcessError",
    "ProcessOutcome",
    "ProcessRunner",
    "ProcessSpec",
    "ProgramFailed",
    "ProgramFailure",
    "ProgramFinished",
    "ProgramStep",
    "ProgressEvent",
    "ProgressReporter",
    "RejectedWithFeedback",
    "Runtime",
    "SandboxMechanism",
    "SandboxMode",
    "SleepWanted",
    "SpillError",
    "SpillLocation",
    "SpillStore",
    "SpillWriter",
    "deadline_reason",
    "gather",
    "log_defect",
    "spill_folder",
    "state_folder",
    "traverse",
]
