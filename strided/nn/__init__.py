"""``strided.nn``: modules, parameters, layers and losses, as ``torch.nn``.

Read ``module.py`` (how a Module finds its parameters), then ``functional/conv.py`` (convolution
as a strided view and a matmul), then the layers. ``strided.nn`` sits above autograd: every
layer is made of strided ops that autograd already knows how to differentiate.
"""

from strided.nn import functional, init
from strided.nn.activation import GELU, ReLU, Sigmoid, Softmax, Tanh
from strided.nn.container import Sequential
from strided.nn.layers import (
    AvgPool2d,
    BatchNorm1d,
    Conv2d,
    Dropout,
    Embedding,
    Flatten,
    LayerNorm,
    Linear,
    MaxPool2d,
)
from strided.nn.loss import BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from strided.nn.module import Module
from strided.nn.parameter import Parameter

__all__ = [
    "AvgPool2d",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "Conv2d",
    "CrossEntropyLoss",
    "Dropout",
    "Embedding",
    "Flatten",
    "GELU",
    "LayerNorm",
    "Linear",
    "MSELoss",
    "MaxPool2d",
    "Module",
    "NLLLoss",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "functional",
    "init",
]
