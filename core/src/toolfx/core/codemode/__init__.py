"""Code Mode: the `run_code` transport, its stubs and its bridge to the pipeline."""

from toolfx.core.codemode._host import CodeHost, SubCall
from toolfx.core.codemode._names import RUN_CODE
from toolfx.core.codemode._stubs import CodeStubs, StubTool, code_stubs
from toolfx.core.codemode._transport import RunCodeArgs, code_transport

__all__ = [
    "RUN_CODE",
    "CodeHost",
    "CodeStubs",
    "RunCodeArgs",
    "StubTool",
    "SubCall",
    "code_stubs",
    "code_transport",
]
