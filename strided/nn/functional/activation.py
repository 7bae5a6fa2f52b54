"""Activation functions: each one line of strided ops, so autograd differentiates them with the
rows of ``strided/autograd/derivatives.py`` (relu, sigmoid, tanh, erf, softmax, log_softmax).
"""

from __future__ import annotations

import math

import strided
from strided.nn.functional._args import need_float, no_graph

__all__ = ["relu", "gelu", "sigmoid", "tanh", "softmax", "log_softmax"]

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def relu(x):
    """``max(x, 0)`` elementwise.

    Examples
    --------
    >>> import strided
    >>> from strided.nn import functional as F
    >>> F.relu(strided.asarray([-1.0, 0.0, 2.0]))
    tensor([0., 0., 2.])
    """
    return strided.relu(need_float(x, "input", "relu"))


def _gelu_one_loop(x):
    """The erf gelu in one loop, the ops' values (Note [gelu in one loop] in
    strided/_cpu/unary.pyx.tp), where no graph is recorded and the kernel applies; else None."""
    if not no_graph(x):
        return None  # a traced value (strided.fx), or the ops record the backward
    from strided._cpu import unary as _unary

    return _unary.gelu_erf(x, _INV_SQRT2)


def gelu(x, approximate="none"):
    """Gaussian error linear unit ``x * Phi(x)``, Phi the standard normal CDF.

    ``approximate="none"`` uses ``erf`` exactly; ``"tanh"`` is the cheaper approximation of the
    GPT-2 code, ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``, as in PyTorch.

    Examples
    --------
    >>> import strided
    >>> from strided.nn import functional as F
    >>> F.gelu(strided.asarray([-1.0, 0.0, 1.0]))
    tensor([-0.15865525,  0.        ,  0.84134475])
    """
    need_float(x, "input", "gelu")
    if approximate == "none":
        fused = _gelu_one_loop(x)
        if fused is not None:
            return fused
        return x * 0.5 * (1.0 + strided.erf(x * _INV_SQRT2))
    if approximate == "tanh":
        inner = (x + 0.044715 * x * x * x) * _SQRT_2_OVER_PI
        return x * 0.5 * (1.0 + strided.tanh(inner))
    raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")


def sigmoid(x):
    """``1 / (1 + exp(-x))`` elementwise."""
    return strided.sigmoid(need_float(x, "input", "sigmoid"))


def tanh(x):
    """Hyperbolic tangent elementwise."""
    return strided.tanh(need_float(x, "input", "tanh"))


def softmax(x, dim):
    """``exp(x) / sum(exp(x))`` along ``dim`` (computed after subtracting the max, so large
    inputs do not overflow)."""
    return strided.softmax(need_float(x, "input", "softmax"), dim)


def log_softmax(x, dim):
    """``x - logsumexp(x)`` along ``dim``: the log-probabilities of a classifier's logits."""
    return strided.log_softmax(need_float(x, "input", "log_softmax"), dim)
