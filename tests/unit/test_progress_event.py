"""A body's progress report is refused, naming what is wrong, unless it is finite numbers and a
text message."""

import re
from typing import Any

import pytest

from toolfx.core.runtime import CancelSignal
from toolfx.core.tools import ExecutionToken, ToolExecution, progress_event


@pytest.mark.parametrize(
    ("progress", "total", "message", "problem"),
    [
        (float("nan"), None, None, "progress must be a finite number, not nan"),
        (1, float("inf"), None, "total must be a finite number, not inf"),
        ("1", None, None, "progress must be a number, not '1'"),
        (True, None, None, "progress must be a number, not True"),
        (1, None, 3, "the progress message must be a string, not 3"),
    ],
)
def test_unusable_progress_is_refused_naming_it(
    progress: Any, total: Any, message: Any, problem: str
) -> None:
    execution = ToolExecution("c", "c", "t", {}, None, ExecutionToken(), CancelSignal())
    with pytest.raises(ValueError, match="^" + re.escape(problem) + "$"):
        progress_event(execution, progress, total, message)
