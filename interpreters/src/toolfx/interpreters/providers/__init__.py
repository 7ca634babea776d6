"""Tool providers: the `toolfx.tools` entry point factories and the catalog they make."""

from toolfx.core.public import publish
from toolfx.interpreters.providers._catalog import (
    GROUP,
    ProviderError,
    ToolProvider,
    load_catalog,
)

__all__ = ["GROUP", "ProviderError", "ToolProvider", "load_catalog"]

publish(__name__, __all__, globals())
