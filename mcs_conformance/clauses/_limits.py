"""A time limit on a clause's run: a strategy or a client that hangs is reported, never waited on."""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Iterator

from hypothesis import control as hypothesis_control

__all__ = ["ClauseTimeout", "time_limit", "timeout_behind"]


class ClauseTimeout(BaseException):
    """Raised inside a hung clause; a BaseException so neither Hypothesis nor the strategy
    under test can swallow it."""


REFIRE = 0.25  # seconds between interrupts once the limit is reached


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Interrupt the block after `seconds` (main thread on POSIX; elsewhere no limit).

    The interrupt repeats until the block ends: one that strikes where Python ignores
    exceptions (a gc callback, a `__del__`) or where code swallows them is not the last.
    Leaving disarms it first, even when an interrupt lands during the cleanup itself, so
    none can strike after the block (in pytest's own teardown). An interrupt that lands as
    Hypothesis enters a test case, after it marked the thread as inside `@given` and before
    its `with` took hold, leaves that mark behind: every later `@given` of the thread would
    fail as nested. Leaving puts the mark back as the block found it.
    """
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return
    armed = [True]

    def interrupt(signum: int, frame: Any) -> None:
        if armed[0]:
            raise ClauseTimeout(f"no result after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, interrupt)
    # Hypothesis' own (private) mark of a thread inside `@given`; absent, nothing to restore
    inside_given = getattr(hypothesis_control, "_current_build_context", None)
    found = None if inside_given is None else inside_given.value
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds, min(seconds, REFIRE))
        yield
    finally:
        while armed[0]:
            try:
                armed[0] = False
            except ClauseTimeout:  # landed before the store: the same limit, already reported
                continue
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if inside_given is not None:
            inside_given.value = found


def timeout_behind(exc: BaseException) -> ClauseTimeout | None:
    """The `ClauseTimeout` that caused `exc`, if any (Hypothesis may raise its own error
    while unwinding from a limit that struck inside its engine)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, ClauseTimeout):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None
