"""Remote tool bodies: the worker's side, and a runner of local processes (Ray: `.ray`)."""

from toolfx.core.public import publish
from toolfx.interpreters.remote._process import ProcessRemote
from toolfx.interpreters.remote._worker import ProvidedTools, find_tool, run_request

__all__ = ["ProcessRemote", "ProvidedTools", "find_tool", "run_request"]

publish(__name__, __all__, globals())
