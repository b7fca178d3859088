"""Loops forever, ignores the alarm, swallows every exception: must score 0, quickly."""
import signal

signal.signal(signal.SIGALRM, signal.SIG_IGN)
while True:  # a top-level cell that never ends
    pass


def perceptron_update(w, b, x, y, eta=1.0):
    while True:
        try:
            while True:
                pass
        except BaseException:
            continue
