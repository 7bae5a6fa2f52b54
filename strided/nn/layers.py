"""The layers with state: Linear, Conv2d, the pools, Flatten, Dropout, Embedding, BatchNorm1d,
LayerNorm. Each holds its parameters and calls its ``functional`` counterpart in ``forward``.

Default initialisations follow PyTorch's (Note [Why the scale of initial weights matters] in
``init.py``): Linear and Conv2d draw weights with ``kaiming_uniform_(a=sqrt(5))``, which is
U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and biases from the same range.
"""

from __future__ import annotations

import math

import strided
from strided._dtype import float32
from strided.nn import functional as F
from strided.nn import init
from strided.nn.functional.linear import _padding_row
from strided.nn.module import Module
from strided.nn.parameter import Parameter

__all__ = [
    "AvgPool2d",
    "BatchNorm1d",
    "Conv2d",
    "Dropout",
    "Embedding",
    "Flatten",
    "LayerNorm",
    "Linear",
    "MaxPool2d",
]


# Note [nn parameters are float32]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# strided has two defaults on purpose (DESIGN.md). Arrays follow NumPy: ``strided.ones(3)``,
# ``strided.asarray([1.5])`` and ``strided.random.rand(2)`` are float64, so NumPy code gives
# NumPy's answer. Layers follow PyTorch: ``nn.Linear(3, 2).weight`` is float32, so a PyTorch
# model built here holds the same parameters as PyTorch's and trains with half the memory
# traffic of float64 (a training step is mostly memory-bound matmuls and elementwise ops).
# So a layer asks for float32 itself instead of ``strided.get_default_dtype()`` (which is the
# *array* default, float64 unless changed). Ask for float64 the PyTorch ways: ``dtype=`` at
# construction (``nn.Linear(3, 2, dtype=strided.float64)``, what gradcheck needs) or
# ``model.double()`` / ``model.to(dtype=strided.float64)`` afterwards. The input must then
# match: ``F.linear``/``F.conv2d`` compute in the promoted dtype of input and weight, so feed
# float32 data (``x.astype(strided.float32)``, as ``_train.py`` does) to stay in float32.
# ``Parameter()`` with no data and the ``nn.init`` functions (which fill a tensor in its own
# dtype) follow the same rule.


def _dtype(dtype):
    """The dtype of a new layer's parameters: ``dtype`` if given, else float32 (Note [nn
    parameters are float32])."""
    return float32 if dtype is None else dtype


def _default_init(weight, bias, fan_in):
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        b = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        init.uniform_(bias, -b, b)


class Linear(Module):
    """``y = x @ weight.T + bias`` with weight (out_features, in_features).

    Examples
    --------
    >>> import strided
    >>> layer = strided.nn.Linear(3, 2)
    >>> layer
    Linear(in_features=3, out_features=2, bias=True)
    >>> layer(strided.ones((5, 3))).shape
    (5, 2)
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        d = _dtype(dtype)
        self.weight = Parameter(strided.empty((out_features, in_features), dtype=d, device=device))
        self.bias = Parameter(strided.empty(out_features, dtype=d, device=device)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        _default_init(self.weight, self.bias, in_features)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Conv2d(Module):
    """2-D convolution through a strided window view and one matmul (Note [Convolution is a
    strided view and a matmul] in ``functional/conv.py``); ``groups`` splits the channels into
    independent groups (``groups=in_channels``: depthwise)."""

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        kh, kw = F.conv.pair(kernel_size, "kernel_size", "Conv2d")
        if groups < 1 or in_channels % groups or out_channels % groups:
            raise ValueError(
                f"Conv2d: groups={groups} must divide both in_channels ({in_channels}) and "
                f"out_channels ({out_channels})"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = (kh, kw)
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.groups = groups
        d = _dtype(dtype)
        shape = (out_channels, in_channels // groups, kh, kw)
        self.weight = Parameter(strided.empty(shape, dtype=d, device=device))
        if bias:
            self.bias = Parameter(strided.empty(out_channels, dtype=d, device=device))
        else:
            self.register_parameter("bias", None)
        _default_init(self.weight, self.bias, in_channels // groups * kh * kw)

    def forward(self, x):
        return F.conv2d(
            x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )

    def extra_repr(self):
        groups = f", groups={self.groups}" if self.groups != 1 else ""
        return (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, padding={self.padding}{groups}"
        )


class MaxPool2d(Module):
    """The maximum of each window; see ``functional.max_pool2d``."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride
        self.padding, self.dilation = padding, dilation

    def forward(self, x):
        return F.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    """The mean of each window; see ``functional.avg_pool2d``."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, x):
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class Flatten(Module):
    """Merge dims ``start_dim..end_dim`` (by default all but the batch dim)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x):
        return F.flatten(x, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Dropout(Module):
    """Inverted dropout with probability ``p`` in training mode; the identity in eval mode.

    Examples
    --------
    >>> import strided
    >>> drop = strided.nn.Dropout(0.5).eval()
    >>> drop(strided.ones(3))
    tensor([1., 1., 1.])
    """

    def __init__(self, p=0.5):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p must be a probability in [0, 1], got {p}")
        self.p = p

    def forward(self, x):
        return F.dropout(x, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}"


class Embedding(Module):
    """A table of ``num_embeddings`` vectors of size ``embedding_dim``, initialised N(0, 1).

    Row ``padding_idx`` (if given; negative counts from the end) starts at zero and gets no
    gradient, so it stays the "nothing here" vector of padded positions, as in PyTorch."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = _padding_row(padding_idx, num_embeddings, "Embedding")
        shape = (num_embeddings, embedding_dim)
        self.weight = Parameter(strided.empty(shape, dtype=_dtype(dtype), device=device))
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with strided.no_grad():
                self.weight[self.padding_idx] = 0.0

    def forward(self, indices):
        return F.embedding(indices, self.weight, self.padding_idx)

    def extra_repr(self):
        pad = f", padding_idx={self.padding_idx}" if self.padding_idx is not None else ""
        return f"{self.num_embeddings}, {self.embedding_dim}{pad}"


class BatchNorm1d(Module):
    """Batch normalisation of (N, C) or (N, C, L) inputs, with running statistics as buffers
    (Note [Batch norm's two variances] in ``functional/normalization.py``)."""

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        d = _dtype(dtype)
        if affine:
            self.weight = Parameter(strided.ones(num_features, dtype=d, device=device))
            self.bias = Parameter(strided.zeros(num_features, dtype=d, device=device))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer(
                "running_mean", strided.zeros(num_features, dtype=d, device=device)
            )
            self.register_buffer("running_var", strided.ones(num_features, dtype=d, device=device))
            self.register_buffer(
                "num_batches_tracked", strided.zeros((), dtype="int64", device=device)
            )
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)

    def forward(self, x):
        if x.ndim not in (2, 3) or x.shape[1] != self.num_features:
            raise ValueError(
                f"BatchNorm1d({self.num_features}): input must be (N, {self.num_features}) or "
                f"(N, {self.num_features}, L), got shape {tuple(x.shape)}"
            )
        use_batch = self.training or not self.track_running_stats
        if self.training and self.track_running_stats:
            with strided.no_grad():
                self.num_batches_tracked.add_(1)
        return F.batch_norm(
            x,
            self.running_mean if self.track_running_stats else None,
            self.running_var if self.track_running_stats else None,
            self.weight,
            self.bias,
            use_batch,
            self.momentum,
            self.eps,
        )

    def extra_repr(self):
        return f"{self.num_features}, eps={self.eps}, momentum={self.momentum}"


class LayerNorm(Module):
    """Normalise over the last dims given by ``normalized_shape``, then a learned affine map."""

    def __init__(
        self, normalized_shape, eps=1e-5, elementwise_affine=True, device=None, dtype=None
    ):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape, self.eps = tuple(normalized_shape), eps
        d = _dtype(dtype)
        if elementwise_affine:
            self.weight = Parameter(strided.ones(self.normalized_shape, dtype=d, device=device))
            self.bias = Parameter(strided.zeros(self.normalized_shape, dtype=d, device=device))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}"
