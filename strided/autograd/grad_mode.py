"""Grad modes: whether operations are recorded, per thread.

Note [Grad mode is per thread]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``no_grad`` in one thread must not stop another thread from recording its own graph, so the flag
lives in a ``threading.local``. ``_State`` subclasses it with class-level defaults, so a fresh
thread starts with grad mode on without any set-up, and reading the flag is one attribute lookup
(the Autograd hook reads it on every dispatched op: Note [The Autograd hook] in recording.py).
Where it is built, the state is the same four flags in C thread-local storage instead (Note
[Grad mode in C] in _grad_state.pyx): a read there costs a fifth of the ``threading.local``'s.

The same flag is what the Autograd kernel turns off while it runs the device kernel below it
(PyTorch's ``AutoDispatchBelowAutograd``): composite kernels that call other public ops must not
record a second, inner graph.

``inference_mode`` is ``no_grad`` plus a promise that the results will never be used in a graph.
PyTorch uses the promise to skip version counters and view tracking; strided's bookkeeping is
already cheap when nothing requires grad, so here it is ``no_grad`` with its own flag
(``is_inference_mode_enabled()``).
"""

from __future__ import annotations

import functools
import threading

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
]


class _State(threading.local):
    enabled = True  # record operations on tensors that require grad
    inference = False  # inside inference_mode
    anomaly = False  # detect_anomaly (see anomaly_mode.py)
    anomaly_check_nan = True


try:  # the same flags in C thread-local storage: Note [Grad mode in C] in _grad_state.pyx
    from strided.autograd._grad_state import GradState as _GradState
except ImportError:  # a checkout whose compiled modules predate it: the threading.local
    _GradState = _State
state = _GradState()


def is_grad_enabled():
    """Whether this thread records operations for autograd."""
    return state.enabled


def is_inference_mode_enabled():
    return state.inference


class _Mode:
    """A context manager that is also a decorator (each call of the decorated function enters a
    fresh copy, so it is re-entrant and thread-safe)."""

    def _enter(self):
        raise NotImplementedError

    def _exit(self):
        raise NotImplementedError

    def __enter__(self):
        self._enter()
        return self

    def __exit__(self, *exc):
        self._exit()
        return False

    def _fresh(self):
        return type(self)()

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self._fresh():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_Mode):  # noqa: N801 - PyTorch's name
    """Do not record operations (context manager or decorator).

    Examples
    --------
    >>> import strided
    >>> x = strided.ones(2).requires_grad_()
    >>> with strided.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def _enter(self):
        self._prev = state.enabled
        state.enabled = False

    def _exit(self):
        state.enabled = self._prev


class enable_grad(_Mode):  # noqa: N801
    """Record operations again inside a ``no_grad`` block (context manager or decorator)."""

    def _enter(self):
        self._prev = state.enabled
        state.enabled = True

    def _exit(self):
        state.enabled = self._prev


class set_grad_enabled(_Mode):  # noqa: N801
    """Set grad mode to ``mode``: takes effect at once (as a function call) and is restored on
    leaving when used as a context manager."""

    def __init__(self, mode):
        self._prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def _fresh(self):
        return set_grad_enabled(self.mode)

    def _enter(self):
        pass

    def __enter__(self):
        return self

    def _exit(self):
        state.enabled = self._prev


class inference_mode(_Mode):  # noqa: N801
    """``no_grad`` for inference (``inference_mode(False)`` is a no-op block)."""

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def _fresh(self):
        return inference_mode(self.mode)

    def _enter(self):
        self._prev = (state.enabled, state.inference)
        if self.mode:
            state.enabled = False
            state.inference = True

    def _exit(self):
        state.enabled, state.inference = self._prev
