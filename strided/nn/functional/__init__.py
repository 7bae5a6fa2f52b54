"""``strided.nn.functional``: the stateless functions behind the layers of ``strided.nn``.

Each is a few strided ops, so autograd differentiates it with no formula of its own. Read
``conv.py`` first: Note [Convolution is a strided view and a matmul] is the classic lesson on
strides (im2col without a copy).
"""

from strided.nn.functional.activation import gelu, log_softmax, relu, sigmoid, softmax, tanh
from strided.nn.functional.conv import avg_pool2d, conv2d, max_pool2d, unfold, window_view
from strided.nn.functional.linear import dropout, embedding, flatten, linear
from strided.nn.functional.loss import (
    binary_cross_entropy_with_logits,
    cross_entropy,
    mse_loss,
    nll_loss,
)
from strided.nn.functional.normalization import batch_norm, layer_norm
from strided.nn.functional.padding import pad

__all__ = [
    "avg_pool2d",
    "batch_norm",
    "binary_cross_entropy_with_logits",
    "conv2d",
    "cross_entropy",
    "dropout",
    "embedding",
    "flatten",
    "gelu",
    "layer_norm",
    "linear",
    "log_softmax",
    "max_pool2d",
    "mse_loss",
    "nll_loss",
    "pad",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
    "unfold",
    "window_view",
]
