"""The Code Mode transport's reserved name."""

from typing import Final

__all__ = ["RUN_CODE"]

RUN_CODE: Final = "run_code"
"""The Code Mode transport's name, reserved: no tool may be registered under it."""
