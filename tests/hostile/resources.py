"""Allocates without bound, prints megabytes, writes huge files, spawns processes: score 0."""
import os
import subprocess
import sys

import numpy as np


def perceptron_update(w, b, x, y, eta=1.0):
    hog = []
    while True:
        hog.append(np.ones(10**7))


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    for _ in range(200):
        print("x" * 100_000)
        os.write(1, b"y" * 100_000)
        os.write(2, b"z" * 100_000)
    with open("big.bin", "wb") as fh:
        for _ in range(100):
            fh.write(b"\0" * 10**6)
    return None


def batch_perceptron_step(w, b, X, y, eta=1.0):
    subprocess.run(["sh", "-c", "echo pwned > /tmp/linclf_pwned"], check=True)
    return w, b, 0


def novikoff_bound(X, y, w, b):
    while True:
        os.fork()
