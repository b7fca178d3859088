"""Wall-clock limits for trusted code (sympy) in the main thread.

Limits nest: an inner :func:`time_limit` never extends an outer one, and an outer limit
that runs out inside an inner one still fires.  :func:`paused` stops the clocks of every
enclosing limit while the student's function runs (its calls have their own limits), so a
test's limit counts only the grader's own work on the answers.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time

#: time limit of one call of a student's function, in seconds (grader and check())
CALL_TIMEOUT = 10.0
#: seconds of the grader's own work (parsing, evaluating, simplifying answers) per test
TEST_TIMEOUT = 30.0
#: seconds of the grader's own work for all tests of one submission
TRUSTED_BUDGET = 240.0
#: seconds to read one returned expression
PARSE_TIMEOUT = 5.0


def calls_budget(timeout):
    """Seconds all calls of one submission may take together (loading not counted)."""
    return max(60.0, 8 * float(timeout))


# active deadlines (time.monotonic()), innermost last; None marks a pause
_stack = []


def _usable():
    return threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")


def _arm():
    live = []
    for d in reversed(_stack):
        if d is None:
            break
        live.append(d)
    if not live:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return
    # a deadline already passed fires at once
    signal.setitimer(signal.ITIMER_REAL, max(min(live) - time.monotonic(), 1e-4))


def _handler(signum, frame):
    # fire again soon: trusted code that swallows the first TimeoutError (a broad
    # ``except Exception``) must not escape the limit; leaving the limit disarms it
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    raise TimeoutError


@contextlib.contextmanager
def time_limit(seconds):
    """Raise ``TimeoutError`` after ``seconds`` (only in the main thread; else no limit)."""
    if not _usable():
        yield
        return
    old = signal.signal(signal.SIGALRM, _handler) if not _stack else None
    _stack.append(time.monotonic() + float(seconds))
    _arm()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _stack.pop()
        if _stack:
            _arm()
        elif old is not None:
            signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def paused():
    """Stop the clocks of the enclosing limits for the duration (a student's call)."""
    if not _usable() or not _stack:
        yield
        return
    start = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, 0)
    _stack.append(None)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _stack.pop()
        elapsed = time.monotonic() - start
        for i, d in enumerate(_stack):
            if d is not None:
                _stack[i] = d + elapsed
        _arm()
