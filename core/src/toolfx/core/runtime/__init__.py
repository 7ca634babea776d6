"""The capabilities descriptions run over: the only suspension points, and Description itself.

The capabilities a description runs over (the only suspension points): Runtime, Description,
cancellation, files, processes, approvals, spills.
"""

from toolfx.core.runtime._cancel import CALLER_CANCELLED, CancelSignal
from toolfx.core.runtime._cell import AtomicCell
from toolfx.core.runtime._combinators import gather, traverse
from toolfx.core.runtime._description import Description
from toolfx.core.runtime._files import FileError, FileErrorKind, FileKind, FileStat, FileSystem
from toolfx.core.runtime._interpreter import Interpreter
from toolfx.core.runtime._processes import (
    SANDBOX_MODES,
    CapturedOutput,
    Confinement,
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
from toolfx.core.runtime._spills import SpillError, SpillLocation, SpillStore
from toolfx.core.runtime._state_folder import spill_folder, state_folder

__all__ = [
    "CALLER_CANCELLED",
    "SANDBOX_MODES",
    "ApprovalReply",
    "ApprovalRequest",
    "AtomicCell",
    "CancelSignal",
    "Cancelled",
    "CapturedOutput",
    "Confinement",
    "DefectReporter",
    "Description",
    "FileError",
    "FileErrorKind",
    "FileKind",
    "FileStat",
    "FileSystem",
    "Interpreter",
    "ProcessError",
    "ProcessOutcome",
    "ProcessRunner",
    "ProcessSpec",
    "ProgressEvent",
    "ProgressReporter",
    "RejectedWithFeedback",
    "Runtime",
    "SandboxMechanism",
    "SandboxMode",
    "SpillError",
    "SpillLocation",
    "SpillStore",
    "deadline_reason",
    "gather",
    "log_defect",
    "spill_folder",
    "state_folder",
    "traverse",
]
