"""A wall-clock limit for trusted code (sympy) in the main thread."""

from __future__ import annotations

import contextlib
import signal
import threading


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
