"""One tool call through every stage, batches, and the returns-shaped composition.

One tool call through every stage, batches and their scheduling, and the returns-shaped composition.
"""

from toolfx.core.pipeline._batch import DEFAULT_PARALLEL_LIMIT, BatchResult, execute_batch
from toolfx.core.pipeline._bounding import BoundedText, bound_text, not_kept
from toolfx.core.pipeline._call import MAX_LISTED_TOOLS, ToolCall, execute, run_call
from toolfx.core.pipeline._composable import call, call_tool, described, lifted, lifted_result
from toolfx.core.pipeline._remote import remote_body
from toolfx.core.pipeline._resumption import Resumption

__all__ = [
    "DEFAULT_PARALLEL_LIMIT",
    "MAX_LISTED_TOOLS",
    "BatchResult",
    "BoundedText",
    "Resumption",
    "ToolCall",
    "bound_text",
    "call",
    "call_tool",
    "described",
    "execute",
    "execute_batch",
    "lifted",
    "lifted_result",
    "not_kept",
    "remote_body",
    "run_call",
]
