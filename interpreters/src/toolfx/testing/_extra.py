"""What a kit module raises when the `testing` extra it needs (pytest, hypothesis) is missing."""

from __future__ import annotations

from typing import Final

__all__ = ["EXTRA", "missing_extra"]

EXTRA: Final = "toolfx-interpreters[testing]"
"""The requirement that installs what the kit's pytest and hypothesis modules import."""


def missing_extra(module: str, error: ImportError) -> ImportError:
    """The error `module` raises when importing what `error` failed to find: which package is
    missing, and the extra that installs it."""
    return ImportError(f"{module} needs {error.name}: install {EXTRA}", name=error.name)
