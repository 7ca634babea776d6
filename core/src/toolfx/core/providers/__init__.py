"""Round trips with model providers: one module per wire format, each with the same three functions.

`openai_chat`, `openai_responses`, `anthropic_messages` and `gemini` each give `tools(catalog)`
(the tool list, kept per catalog snapshot), `calls(reply, catalog)` (the reply's tool calls as
`ToolCall`s) and `results(calls, results)` (what the provider takes next), plus `notes(catalog)`
(where the tool list differs from the tools' schemas). `model_call` makes one call the same way,
for adapters that receive a model's calls one at a time.
"""

from toolfx.core.providers._model_call import model_call
from toolfx.core.providers._nulls import undo_strict_nulls
from toolfx.core.providers._reply import ProviderReply, ReplyError, SupportsModelDump
from toolfx.core.providers._tools import ToolNote

__all__ = [
    "ProviderReply",
    "ReplyError",
    "SupportsModelDump",
    "ToolNote",
    "model_call",
    "undo_strict_nulls",
]
