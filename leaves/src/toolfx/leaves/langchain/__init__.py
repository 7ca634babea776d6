"""LangChain tools (`BaseTool`s, `@tool` functions) registered in a Location, run by toolfx.

    register(location, [search, fetch], namespace="lc")   # lc_search, lc_fetch

Each call goes through toolfx's whole pipeline: toolfx validates the arguments against the
tool's JSON Schema, then rules, asks, guards, wrappers and observers apply before the body calls
the LangChain tool (`ainvoke`; LangChain runs on asyncio, so run the calls with the anyio
interpreter on asyncio). Its errors are TOOL_ERROR failures. Needs the `langchain` extra of
toolfx-leaves.
"""

from toolfx.core.public import publish
from toolfx.leaves.langchain._tools import definitions, register

__all__ = ["definitions", "register"]

publish(__name__, __all__, globals())
