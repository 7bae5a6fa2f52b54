"""Weight initialisation, as ``torch.nn.init``: fill a tensor in place, without recording.

Note [Why the scale of initial weights matters]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A layer ``y = W x`` with ``fan_in`` inputs multiplies the variance of its input by about
``fan_in * Var(W)``. Stack ten layers and that factor is raised to the tenth power: activations
and gradients explode or vanish unless ``Var(W) ~ 1 / fan_in``. Xavier/Glorot (2010) keeps both
the forward and the backward variance steady for linear/tanh layers with ``Var(W) = 2 / (fan_in +
fan_out)``; Kaiming/He (2015) accounts for ReLU zeroing half its inputs with ``Var(W) = 2 /
fan_in``. A uniform distribution on [-b, b] has variance b^2 / 3, hence the ``sqrt(3)`` below.
``gain`` rescales for the nonlinearity that follows (``calculate_gain``).

For a conv weight (C_out, C_in, kh, kw) the fans count the receptive field:
``fan_in = C_in * kh * kw``, ``fan_out = C_out * kh * kw``.
"""

from __future__ import annotations

import math

import strided
from strided.autograd.grad_mode import no_grad

__all__ = [
    "calculate_gain",
    "constant_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]


def calculate_gain(nonlinearity, param=None):
    """The factor to multiply a standard deviation by for ``nonlinearity`` (PyTorch's table)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "sigmoid", "identity")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(
        f"calculate_gain: unknown nonlinearity {nonlinearity!r}; known: {', '.join(linear)}, "
        "tanh, relu, leaky_relu, selu"
    )


def _fans(t, fn):
    if t.ndim < 2:
        raise ValueError(
            f"{fn}: fan in and fan out need a tensor of at least 2 dims, got shape {tuple(t.shape)}"
        )
    receptive = math.prod(t.shape[2:])
    return t.shape[1] * receptive, t.shape[0] * receptive


def _fill(t, values):
    with no_grad():
        t.copy_(values)
    return t


def uniform_(t, a=0.0, b=1.0, generator=None):
    """Fill ``t`` with U(a, b) in place."""
    u = strided.random.uniform(a, b, t.shape, dtype=t.dtype, device=t.device, generator=generator)
    return _fill(t, u)


def normal_(t, mean=0.0, std=1.0, generator=None):
    """Fill ``t`` with N(mean, std^2) in place."""
    n = strided.random.normal(
        mean, std, t.shape, dtype=t.dtype, device=t.device, generator=generator
    )
    return _fill(t, n)


def constant_(t, value):
    with no_grad():
        t.fill_(value)
    return t


def zeros_(t):
    return constant_(t, 0.0)


def ones_(t):
    return constant_(t, 1.0)


def _fan(t, mode, fn):
    fan_in, fan_out = _fans(t, fn)
    if mode == "fan_in":
        return fan_in
    if mode == "fan_out":
        return fan_out
    raise ValueError(f"{fn}: mode must be 'fan_in' or 'fan_out', got {mode!r}")


def xavier_uniform_(t, gain=1.0, generator=None):
    """U(-b, b) with ``b = gain * sqrt(6 / (fan_in + fan_out))`` (Note [Why the scale of
    initial weights matters]).

    Examples
    --------
    >>> import strided
    >>> w = strided.nn.init.xavier_uniform_(strided.empty((300, 200)))
    >>> bool(strided.max(strided.abs(w)) <= (6 / 500) ** 0.5)
    True
    """
    fan_in, fan_out = _fans(t, "xavier_uniform_")
    b = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(t, -b, b, generator)


def xavier_normal_(t, gain=1.0, generator=None):
    """N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _fans(t, "xavier_normal_")
    return normal_(t, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def kaiming_uniform_(t, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-b, b) with ``b = gain * sqrt(3 / fan)``, gain for ``nonlinearity`` with slope ``a``."""
    fan = _fan(t, mode, "kaiming_uniform_")
    b = calculate_gain(nonlinearity, a) * math.sqrt(3.0 / fan)
    return uniform_(t, -b, b, generator)


def kaiming_normal_(t, a=0.0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with ``std = gain / sqrt(fan)``."""
    fan = _fan(t, mode, "kaiming_normal_")
    return normal_(t, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)
