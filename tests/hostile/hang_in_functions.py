"""Every function loops forever (some catching the time-limit exception): must score 0."""
import signal
import time


def perceptron_update(w, b, x, y, eta=1.0):
    while True:
        pass


def perceptron_train(X, y, eta=1.0, max_epochs=100):
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        pass


def batch_perceptron_step(w, b, X, y, eta=1.0):
    while True:
        try:
            time.sleep(100)
        except BaseException:
            pass


def novikoff_bound(X, y, w, b):
    signal.setitimer(signal.ITIMER_REAL, 0)
    while True:
        pass
