"""Activation layers: stateless Modules around ``strided.nn.functional``."""

from __future__ import annotations

from strided.nn import functional as F
from strided.nn.module import Module

__all__ = ["GELU", "ReLU", "Sigmoid", "Softmax", "Tanh"]


class ReLU(Module):
    """``max(x, 0)``."""

    def forward(self, x):
        return F.relu(x)


class GELU(Module):
    """``x * Phi(x)`` (``approximate="tanh"`` for the tanh form)."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Sigmoid(Module):
    def forward(self, x):
        return F.sigmoid(x)


class Tanh(Module):
    def forward(self, x):
        return F.tanh(x)


class Softmax(Module):
    """Softmax along ``dim``."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return F.softmax(x, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
