"""A wall-clock limit for trusted code (sympy) in the main thread."""

from __future__ import annotations

import contextlib
import signal
import threading

#: time limit of one call of a student's function, in seconds (grader and check())
CALL_TIMEOUT = 10.0


def calls_budget(timeout):
    """Seconds all calls of one submission may take together (loading not counted)."""
    return max(60.0, 8 * float(timeout))


@contextlib.contextmanager
def time_limit(seconds):
    """Raise ``TimeoutError`` after ``seconds`` (only in the main thread; else no limit)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def handler(signum, frame):
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
