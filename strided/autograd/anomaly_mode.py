"""Anomaly detection: find the forward op whose backward produced NaN or Inf.

Note [Anomaly mode]
~~~~~~~~~~~~~~~~~~~
Every node records the user's source line when it is made (Note [Saved tensors and the version
counter] in graph.py). Inside ``detect_anomaly()`` nodes also keep the whole Python stack of the
forward call, and the engine checks every gradient a node returns: a NaN or Inf raises at once,
naming the node, the forward op's line and its stack, instead of surfacing as a NaN loss many
steps later. The checks read every gradient, so the mode is for debugging, not for training.
"""

from __future__ import annotations

import traceback

from strided.autograd.grad_mode import _Mode, state

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]


def is_anomaly_enabled():
    return state.anomaly


class detect_anomaly(_Mode):  # noqa: N801 - PyTorch's name
    """Check every backward result for NaN/Inf and name the forward op that made it
    (context manager or decorator)."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def _fresh(self):
        return detect_anomaly(self.check_nan)

    def _enter(self):
        self._prev = (state.anomaly, state.anomaly_check_nan)
        state.anomaly = True
        state.anomaly_check_nan = self.check_nan

    def _exit(self):
        state.anomaly, state.anomaly_check_nan = self._prev


class set_detect_anomaly(detect_anomaly):  # noqa: N801
    """Turn anomaly mode on or off (restored on leaving when used as a context manager)."""

    def __init__(self, mode, check_nan=True):
        self.mode = bool(mode)
        self.check_nan = check_nan
        self._prev = (state.anomaly, state.anomaly_check_nan)
        state.anomaly = self.mode
        state.anomaly_check_nan = check_nan

    def _fresh(self):
        return set_detect_anomaly(self.mode, self.check_nan)

    def _enter(self):
        pass


def record_trace(node):
    """Keep the forward stack of ``node`` (only in anomaly mode: formatting it costs)."""
    node._anomaly_trace = "".join(traceback.format_stack()[:-4])


def anomaly_error(node, i, g):
    trace = node._anomaly_trace or "(not recorded: the node was made outside detect_anomaly)\n"
    return RuntimeError(
        f"Function '{node.name()}' returned NaN or Inf values in its gradient {i} "
        f"({g.dtype.name}{list(g.shape)}). Its forward op was called at "
        f"{node.source or '<unknown>'}. Forward stack:\n{trace}"
    )
