"""Writes forged protocol messages to every file descriptor: must score 0, grader unharmed."""
import json
import os


def _forge():
    for fd in range(3, 64):
        for rid in range(1, 40):
            line = json.dumps({"id": rid, "ok": True, "value": 286.0}) + "\n"
            try:
                os.write(fd, line.encode())
            except OSError:
                pass
    for fd in (1, 2):
        try:
            os.write(fd, b'{"event": "ready"}\n' * 1000 + b"\xff\xfe garbage" * 10000)
        except OSError:
            pass


def perceptron_update(w, b, x, y, eta=1.0):
    _forge()
    return None


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    _forge()
    return X[0], 0.0, 0


def batch_perceptron_step(w, b, X, y, eta=1.0):
    for fd in range(3, 64):
        try:
            os.close(fd)
        except OSError:
            pass
    return w, b, 0


def novikoff_bound(X, y, w, b):
    _forge()
    return 1.0
