"""The `toolfx` command line: `demo`, `run`, `approve`, `replay`, `tools` and `mcp serve`.

The tools come from the factories installed under the `toolfx.tools` entry point group; output
is rich panels (or `--json` lines); every session can be logged as JSONL and replayed.
"""

from __future__ import annotations

from toolfx.core.public import publish
from toolfx.interpreters.cli._main import main

__all__ = ["main"]

publish(__name__, __all__, globals())
