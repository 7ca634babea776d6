"""Who answers a session's asks: deferred to `toolfx approve`, a fixed answer (`--deny-asks`,
`--yes`), the person at the controlling terminal, or no one (no terminal, or it hung up), and
telling the person afterwards how many asks no one could answer."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import final

from rich.console import Console

from toolfx.core.json import plural
from toolfx.core.registry import Catalog
from toolfx.interpreters.cli._approvals import Answer, Prompter, Unattended, choose_answer, fixed
from toolfx.interpreters.cli._render import Display
from toolfx.interpreters.cli._tty import Terminal, open_terminal

__all__ = ["Asking", "terminal_answers"]


@final
@dataclass(frozen=True, slots=True)
class Asking:
    """How a session's asks are answered: `answer_for` a display, and who was there to answer;
    the prompt is shown on a console `console_for` makes on the terminal."""

    catalog: Catalog
    terminal: Terminal | None
    console_for: Callable[[Terminal], Console]
    unattended: Unattended
    yes: bool = False
    deny_asks: bool = False
    defer: bool = False

    def answer_for(self, display: Display) -> Answer:
        """`--defer-asks` defers, `--deny-asks` rejects, `--yes` allows once; else the person at
        the controlling terminal is asked, or no one answers (`unavailable`, counted), also
        once the terminal has hung up."""
        if self.defer:
            return fixed("deferred")
        prompter = None
        if self.terminal is not None:
            console = self.console_for(self.terminal)
            prompter = Prompter(
                console, self.terminal, display.paused, self.catalog, self.unattended
            )
        return choose_answer(
            yes=self.yes, deny_asks=self.deny_asks, prompter=prompter, unattended=self.unattended
        )

    def report(self) -> None:
        """Say once on stderr how many asks no one could answer (none: nothing); a stderr that
        is gone too (the terminal hung up) is told nothing."""
        asked = self.unattended.asked
        if not asked:
            return
        why = "no terminal" if self.terminal is None else "the terminal hung up"
        with contextlib.suppress(OSError, ValueError):
            print(
                f"toolfx: no one could approve {plural(asked, 'ask')} ({why}):"
                " use --yes, --deny-asks or run in a terminal",
                file=sys.stderr,
                flush=True,
            )


@contextlib.contextmanager
def terminal_answers(
    catalog: Catalog,
    console_for: Callable[[Terminal], Console],
    *,
    yes: bool = False,
    deny_asks: bool = False,
    defer: bool = False,
) -> Iterator[Asking]:
    """How `run` (and `demo --interactive`) answer asks; the controlling terminal, whatever stdin
    and stdout are (`--json | jq` still asks), is opened only when someone may be asked, and
    closed afterwards."""
    asking = not (defer or yes or deny_asks)
    terminal = open_terminal() if asking else None
    try:
        yield Asking(catalog, terminal, console_for, Unattended(), yes, deny_asks, defer)
    finally:
        if terminal is not None:
            terminal.close()
