"""Kernel replies are read within a second of arriving, however long a client waits for them.

nbclient waits for a cell's ``execute_reply`` with one ``poll`` on the shell socket that lasts the
whole cell timeout (600 s here), and for its outputs with one ``poll`` without a timeout. pyzmq's
asyncio poll is woken by the socket's edge-triggered file descriptor, and now and then that wake-up
is lost although the reply is already in the socket: the client then sits idle beside an idle
kernel until the timer fires, when pyzmq looks at the socket once more, finds the reply and goes on
as if nothing happened. The test suite saw this as notebooks that passed after exactly 600 s.

`install` makes every asynchronous channel poll in slices of at most `SLICE` seconds, so a lost
wake-up costs at most one slice; a message that is there is read at once, and a wait with a
deadline still ends with ``Empty`` at its deadline. It is used by the book build (myst-nb runs
nbclient in the Sphinx process) and by the tests that execute notebooks.
"""

from __future__ import annotations

from queue import Empty
from time import monotonic

SLICE = 0.5


def _sliced(get_msg):
    async def get_msg_sliced(self, timeout=None):
        deadline = None if timeout is None else monotonic() + timeout
        while True:
            left = SLICE if deadline is None else deadline - monotonic()
            try:
                return await get_msg(self, timeout=max(0.0, min(SLICE, left)))
            except Empty:
                if deadline is not None and monotonic() >= deadline:
                    raise

    get_msg_sliced.__wrapped__ = get_msg
    return get_msg_sliced


def install():
    """Patch jupyter_client's asynchronous channel once per process (idempotent)."""
    from jupyter_client.channels import AsyncZMQSocketChannel

    if not hasattr(AsyncZMQSocketChannel.get_msg, "__wrapped__"):
        AsyncZMQSocketChannel.get_msg = _sliced(AsyncZMQSocketChannel.get_msg)
