"""Activation functions: each one line of strided ops, so autograd differentiates them with the
rows of ``strided/autograd/derivatives.py`` (relu, sigmoid, tanh, softmax, log_softmax); gelu on
the CPU is one loop, or one op with a row of its own (Note [gelu as one op] in
strided/_cpu/unary.pyx.tp).
"""

from __future__ import annotations

import math

import strided
from strided._core import TensorBase
from strided.nn.functional._args import need_float, no_graph

__all__ = ["relu", "gelu", "sigmoid", "tanh", "softmax", "log_softmax"]

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


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


def gelu(x, approximate="none"):
    """Gaussian error linear unit ``x * Phi(x)``, Phi the standard normal CDF.

    ``approximate="none"`` is the exact form, ``Phi(x) = (1 + erf(x / sqrt 2)) / 2`` (on the CPU
    in float64 within 1 ulp of gelu, in float32 within a few ulp of it: Note [gelu's lanes] in
    strided/_cpu/gelu.h); ``"tanh"`` is the cheaper approximation of the GPT-2 code, ``0.5 x (1
    + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``, as in PyTorch.

    Examples
    --------
    >>> import strided
    >>> from strided.nn import functional as F
    >>> F.gelu(strided.asarray([-1.0, 0.0, 1.0]))
    tensor([-0.15865525,  0.        ,  0.84134475])
    """
    need_float(x, "input", "gelu")
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    if _one_op_case(x):
        # one loop, or one op with a graph (Note [gelu as one op] in strided/_cpu/unary.pyx.tp)
        if no_graph(x):
            return _gelu_cpu(x, approximate)
        return _gelu_op()(x, approximate)
    return _gelu_ops(x, approximate)


def _one_op_case(x):
    """Whether gelu runs as the loop and op of Note [gelu as one op]: a float32 or float64
    tensor on the CPU."""
    return (
        isinstance(x, TensorBase)
        and x.device.type == "cpu"
        and x.dtype.name in ("float32", "float64")
    )


def _gelu_ops(x, approximate):
    """gelu as separate ops (what every other path must agree with, within Note [gelu's
    lanes] in strided/_cpu/gelu.h; the compiler's decomposition, fx/passes.py's, is the same)."""
    if approximate == "tanh":
        inner = (x + 0.044715 * x * x * x) * _SQRT_2_OVER_PI
        return x * 0.5 * (1.0 + strided.tanh(inner))
    return x * 0.5 * (1.0 + strided.erf(x * _INV_SQRT2))


def _gelu_cpu(x, approximate):
    from strided._cpu import unary as _unary

    return _unary.gelu(x, approximate == "tanh")


def _gelu_meta(x, approximate):
    from strided import library

    return library.TensorMeta(tuple(x.shape), x.dtype, x.device)


def _gelu_grad(grad, x, approximate):
    """grad * gelu'(x): one loop (Note [gelu as one op]), or, when the backward is itself
    recorded (``create_graph=True``), public ops that double backward differentiates."""
    tanh = approximate == "tanh"
    if not strided.is_grad_enabled():
        from strided._cpu import unary as _unary

        gx = _unary.gelu_backward(grad, x, tanh)
        if gx is not None:
            return gx
    if tanh:
        k = _SQRT_2_OVER_PI
        s = strided.sigmoid(2.0 * k * (x + 0.044715 * x * x * x))
        du = k * (1.0 + 3 * 0.044715 * x * x)
        return grad * (s + x * (2.0 * s * (1.0 - s)) * du)
    cdf = 0.5 * (1.0 + strided.erf(x * _INV_SQRT2))
    pdf = strided.exp(-0.5 * x * x) * _INV_SQRT_2PI
    return grad * (cdf + x * pdf)


_OP = []


def _gelu_op():
    """``nn::gelu``, declared on first use (Note [gelu as one op] in strided/_cpu/unary.pyx.tp)."""
    if not _OP:
        from strided import library

        _OP.append(
            library.declare(
                "nn::gelu(Tensor x, str approximate) -> Tensor",
                _gelu_cpu,
                _gelu_meta,
                x=_gelu_grad,
            )
        )
    return _OP[0]


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
