"""How much of a result's text the model sees: a line and a UTF-8 byte limit, validated."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, final

from toolfx.core.tools._naming import ToolDefinitionError

__all__ = ["DEFAULT_OUTPUT_LIMITS", "OutputLimits"]


@final
@dataclass(frozen=True, slots=True)
class OutputLimits:
    """The most lines and UTF-8 bytes of text a result shows the model (both positive ints).

    Text over either limit is cut, the whole kept in the runtime's spill store, and the model
    told where (see `toolfx.core.bound_text`).
    """

    lines: int = 2000
    bytes: int = 50 * 1024
    clear_chars: int = field(init=False, repr=False, compare=False)
    """The most characters a text may have and be within both limits whatever it holds (each
    character at most a line and four UTF-8 bytes): a bound checked without a pass over it."""

    def __post_init__(self) -> None:
        for name in ("lines", "bytes"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ToolDefinitionError(
                    None, f"output_limits.{name}", f"must be a positive int, not {value!r}"
                )
        object.__setattr__(self, "clear_chars", min(self.lines, self.bytes // 4))


DEFAULT_OUTPUT_LIMITS: Final = OutputLimits()
"""The limits when neither the tool nor its Location says otherwise: 2,000 lines, 50 KB."""
