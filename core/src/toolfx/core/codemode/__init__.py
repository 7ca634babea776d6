"""Code Mode: the `run_code` transport, its stubs and its bridge to the pipeline."""

from toolfx.core.codemode._stubs import CodeStubs, StubTool, code_stubs

__all__ = ["CodeStubs", "StubTool", "code_stubs"]
