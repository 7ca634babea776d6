"""Shapes: a second file for the demo's searches to find."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Square:
    """A square with a side length."""

    side: float

    def area(self) -> float:
        """The square's area."""
        return self.side * self.side
